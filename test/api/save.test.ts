import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { linkResponseSchema } from '../../shared/links/link-response.ts';
import { formatPgInstant } from '../../shared/time/instant.ts';
import { postgresBackends } from '../support/servers.ts';
import { bootApi, findNullPaths, type ApiFixture, type Org } from '../support/api-fixture.ts';

type Link = Record<string, unknown> & { shortCode: string; smartLink: string; deepLinks: Record<string, unknown>[] };

// The same black-box suite runs on every Postgres backend: embedded and the machine's server.
for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  describe(`save on ${backend.name}`, () => {
    let fx: ApiFixture;
    let biz: Org;
    let free: Org;

    beforeAll(async () => {
      fx = await bootApi({}, backend.adminUrl);
      [biz, free] = await Promise.all([fx.org('BUSINESS'), fx.org('FREE')]);
    });
    afterAll(async () => fx?.close());

    const code = (p: string) => `${p}${Math.random().toString(36).slice(2, 10)}`;

    describe('save: create', () => {
      it('creates a link from a url alone, with every server-controlled field and no nulls', async () => {
        const r = await biz.client.save<Link>({ url: 'https://example.com/a' });
        expect(r.status).toBe(200);
        expect(r.body.errors).toBeUndefined();
        const link = r.body.response!;
        expect(linkResponseSchema.parse(link)).toBeTruthy();
        expect(link.shortCode).toMatch(/^[A-Za-z0-9]{7}$/);
        expect(link.smartLink).toBe(`https://sho.rt/${link.shortCode}`);
        expect(link).toMatchObject({ url: 'https://example.com/a', isActive: true, cloakEnabled: false, enableCustomMetadata: false, deepLinks: [] });
        expect(link).toMatchObject({ createdBy: 'api-key:tests', updatedBy: 'api-key:tests', createdVia: 'EXTERNAL', lastModifiedVia: 'EXTERNAL' });
        expect('shortLinkName' in link).toBe(false);
        expect(findNullPaths(r.body)).toEqual([]);
      });

      it('prints the stored microseconds of createdAt/updatedAt exactly (no Date round trip)', async () => {
        const r = await biz.client.save<Link>({ url: 'https://example.com/ts' });
        const [row] = await fx.db.sql<
          { created_at: string; updated_at: string }[]
        >`select created_at, updated_at from links where short_code = ${r.body.response!.shortCode}`;
        expect(r.body.response!.createdAt).toBe(formatPgInstant(row!.created_at));
        expect(r.body.response!.updatedAt).toBe(formatPgInstant(row!.updated_at));
        expect(String(r.body.response!.createdAt)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);
      });

      it('strips createdVia/lastModifiedVia and other response-only members from requests', async () => {
        const r = await biz.client.save<Link>({
          url: 'https://example.com/s',
          createdVia: 'INTERNAL',
          lastModifiedVia: 'INTERNAL',
          smartLink: 'https://evil/x',
          createdBy: 'me',
        });
        expect(r.status).toBe(200);
        expect(r.body.response).toMatchObject({ createdVia: 'EXTERNAL', lastModifiedVia: 'EXTERNAL', createdBy: 'api-key:tests' });
        expect(r.body.response!.smartLink).not.toContain('evil');
      });
    });

    describe('save: validation', () => {
      it.each([
        [{}, 'url: must not be empty'],
        [{ url: '' }, 'url: must not be empty'],
        [{ url: '   ' }, 'url: must not be empty'],
        [{ url: 'javascript:alert(1)' }, 'url: must be an absolute http or https URL'],
        [{ url: '/relative' }, 'url: must be an absolute http or https URL'],
        [{ url: `https://e.com/${'a'.repeat(2050)}` }, 'url: must be an absolute http or https URL'],
        [{ url: 'https://e.com', fallbackUrl: 1, deepLinks: [{ mobileAppId: 'x', fallbackUrl: 'data:text/html,x' }] }, 'deepLinks[0].fallbackUrl'],
      ])('%j → 400 SML002', async (body, message) => {
        const r = await biz.client.save(body);
        expect(r.status).toBe(400);
        expect(r.body.errors![0]!.code).toBe('SML002');
        expect(r.body.errors![0]!.message).toContain(message);
        expect(r.body.response).toBeUndefined();
      });

      it('SML002 takes precedence over VE001', async () => {
        const r = await biz.client.save({ url: '', isActive: 'nope' });
        expect(r.status).toBe(400);
        expect(r.body.errors!.map((e) => e.code)).toEqual(['SML002']);
      });

      it('a member of the wrong JSON type is VE001 naming the field path', async () => {
        const r = await biz.client.save({ url: 'https://e.com', isActive: 'yes' });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]).toMatchObject({ code: 'VE001' });
        expect(r.body.errors![0]!.message).toContain('isActive');
        const r2 = await biz.client.save({ url: 'https://e.com', deepLinks: [{ mobileAppId: 'AAAAAAAAAAAA', fallbackEnabled: 'x' }] });
        expect(r2.body.errors![0]!.message).toContain('deepLinks[0].fallbackEnabled');
      });

      it.each([
        ['not json', 'application/json'],
        ['', 'application/json'],
        ['[1,2]', 'application/json'],
        ['"a string"', 'application/json'],
        ['url=https://e.com', 'application/x-www-form-urlencoded'],
        ['{"url":"https://e.com"}', 'text/plain'],
      ])('malformed or missing body %j (%s) → VE001', async (raw, type) => {
        const r = await biz.client.saveRaw(raw, { 'content-type': type });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]).toEqual({ code: 'VE001', message: 'Request body is missing or malformed' });
      });

      it('a body over 1 MiB is VE001, not 413 or 500', async () => {
        const r = await biz.client.save({ url: 'https://e.com', shortLinkName: 'x'.repeat(1024 * 1024 + 10) });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]!.code).toBe('VE001');
      });

      it.each(['abc', 'has space12', 'a'.repeat(51), 'bad/slash1', 'ünïcödé12'])('shortCode %j → VE001 FORMAT with the spec message', async (sc) => {
        const r = await biz.client.save({ url: 'https://e.com', shortCode: sc });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]).toEqual({
          code: 'VE001',
          message: 'Invalid short code format. Must be 7-50 characters, alphanumeric, underscore or hyphen only.',
          details: { field: 'shortCode', reason: 'FORMAT' },
        });
      });

      it.each(['healthz', 'METRICS', 'Dashboard', 'analytics'])('shortCode %j → VE001 RESERVED (case-insensitive)', async (sc) => {
        const r = await biz.client.save({ url: 'https://e.com', shortCode: sc });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]).toMatchObject({ code: 'VE001', details: { field: 'shortCode', reason: 'RESERVED' } });
      });

      it('a shortCode held by another organisation → VE001 TAKEN; case-sensitive', async () => {
        const sc = code('Taken-');
        expect((await free.client.save({ url: 'https://e.com/free', shortCode: sc })).status).toBe(200);
        const r = await biz.client.save({ url: 'https://e.com/biz', shortCode: sc });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]).toMatchObject({ code: 'VE001', details: { field: 'shortCode', reason: 'TAKEN' } });
        const other = await biz.client.save<Link>({ url: 'https://e.com/biz', shortCode: sc.toLowerCase() });
        expect(other.status).toBe(200);
        expect(other.body.response!.shortCode).toBe(sc.toLowerCase());
      });
    });

    describe('save: update merges', () => {
      it('changes only the members the request carries', async () => {
        const sc = code('merge-');
        const first = await biz.client.save<Link>({
          url: 'https://e.com/1',
          shortCode: sc,
          shortLinkName: 'Summer',
          utmSource: 'nl',
          utmMedium: 'email',
          cloakEnabled: true,
        });
        expect(first.body.response).toMatchObject({ cloakEnabled: true, utmSource: 'nl' });
        const second = await biz.client.save<Link>({ url: 'https://e.com/2', shortCode: sc, utmMedium: 'social' });
        expect(second.status).toBe(200);
        expect(second.body.response).toMatchObject({
          url: 'https://e.com/2',
          shortLinkName: 'Summer',
          utmSource: 'nl',
          utmMedium: 'social',
          cloakEnabled: true,
        });
        expect(second.body.response!.createdAt).toBe(first.body.response!.createdAt);
        expect(String(second.body.response!.updatedAt) > String(first.body.response!.updatedAt)).toBe(true);
        const third = await biz.client.save<Link>({ url: 'https://e.com/2', shortCode: sc, cloakEnabled: false, shortLinkName: null });
        expect(third.body.response!.cloakEnabled).toBe(false);
        expect('shortLinkName' in third.body.response!).toBe(false);
        const listed = await biz.client.list<{ data: Link[] }>({ query: `shortCode=${sc}` });
        expect(listed.body.response!.data).toHaveLength(1);
        expect(listed.body.response!.data[0]).toMatchObject({ url: 'https://e.com/2', utmSource: 'nl', cloakEnabled: false });
      });

      it('archives with isActive=false and keeps it on later updates that omit it', async () => {
        const sc = code('arch-');
        await biz.client.save({ url: 'https://e.com', shortCode: sc });
        expect((await biz.client.save<Link>({ url: 'https://e.com', shortCode: sc, isActive: false })).body.response!.isActive).toBe(false);
        expect((await biz.client.save<Link>({ url: 'https://e.com/x', shortCode: sc })).body.response!.isActive).toBe(false);
      });

      it('a dashboard-made link updated through the API: createdVia INTERNAL, lastModifiedVia EXTERNAL', async () => {
        const made = await fx.svc.admin<Link>('link', 'create', '--org', biz.id, '--url', 'https://e.com/dash', '--by', 'ops@acme.test');
        expect(made).toMatchObject({ createdBy: 'ops@acme.test', createdVia: 'INTERNAL', lastModifiedVia: 'INTERNAL' });
        const r = await biz.client.save<Link>({ url: 'https://e.com/dash2', shortCode: made.shortCode });
        expect(r.body.response).toMatchObject({ createdBy: 'ops@acme.test', updatedBy: 'api-key:tests', createdVia: 'INTERNAL', lastModifiedVia: 'EXTERNAL' });
      });
    });

    describe('save: custom domains', () => {
      it('rejects a customDomain that is not active for the organisation', async () => {
        const r = await biz.client.save({ url: 'https://e.com', customDomain: 'nope.example' });
        expect(r.status).toBe(400);
        expect(r.body.errors![0]!.code).toBe('VE001');
      });

      it('uses the custom domain, then the primary domain, and falls back to the default once removed', async () => {
        await fx.svc.admin('domain', 'add', '--org', biz.id, '--host', 'Go.Acme.test');
        const withDomain = await biz.client.save<Link>({ url: 'https://e.com', customDomain: 'go.acme.test' });
        expect(withDomain.body.response!.smartLink).toBe(`https://go.acme.test/${withDomain.body.response!.shortCode}`);
        await fx.svc.admin('domain', 'add', '--org', biz.id, '--host', 'primary.acme.test', '--primary');
        const onPrimary = await biz.client.save<Link>({ url: 'https://e.com' });
        expect(onPrimary.body.response!.smartLink).toBe(`https://primary.acme.test/${onPrimary.body.response!.shortCode}`);
        // another organisation cannot use it
        expect((await free.client.save({ url: 'https://e.com', customDomain: 'go.acme.test' })).status).toBe(400);

        await fx.svc.admin('domain', 'remove', '--org', biz.id, '--host', 'go.acme.test');
        const listed = await biz.client.list<{ data: Link[] }>({ query: `shortCode=${withDomain.body.response!.shortCode}` });
        expect(listed.body.response!.data[0]!.smartLink).toBe(`https://sho.rt/${withDomain.body.response!.shortCode}`);
        await fx.svc.admin('domain', 'remove', '--org', biz.id, '--host', 'primary.acme.test');
      });
    });

    describe('save: deep links', () => {
      it('rejects null, blank, whitespace and unregistered mobileAppIds with DL001 and details', async () => {
        for (const id of [null, '', '   ', 'AAAAAAAAAAAA']) {
          const r = await biz.client.save({ url: 'https://e.com', deepLinks: [{ mobileAppId: id, deeplinkUrl: 'app://x' }] });
          expect(r.status).toBe(400);
          expect(r.body.errors![0]).toEqual({
            code: 'DL001',
            message: `Deep link entry rejected: mobileAppId '${id ?? 'null'}' is not recognised for this organisation`,
            details: { kind: 'deep_link_validation', mobileAppId: id },
          });
        }
      });

      it("rejects another organisation's app", async () => {
        const app = await fx.svc.admin<{ mobileAppId: string }>(
          'app',
          'register',
          '--org',
          free.id,
          '--name',
          'F',
          '--platform',
          'IOS',
          '--store-url',
          'https://apps.apple.com/f',
        );
        const r = await biz.client.save({ url: 'https://e.com', deepLinks: [{ mobileAppId: app.mobileAppId }] });
        expect(r.body.errors![0]!.code).toBe('DL001');
      });

      it('resolves platform, storeUrl and appId from the registered app, overwriting request values, and follows store-URL edits', async () => {
        const ios = await fx.svc.admin<{ mobileAppId: string; appId: number }>(
          'app',
          'register',
          '--org',
          biz.id,
          '--name',
          'iOS',
          '--platform',
          'IOS',
          '--store-url',
          'https://apps.apple.com/app/1',
        );
        expect(ios.mobileAppId).toMatch(/^[A-Za-z0-9+/]{12}$/);
        const sc = code('deep-');
        const r = await biz.client.save<Link>({
          url: 'https://e.com/deep',
          shortCode: sc,
          deepLinks: [
            {
              mobileAppId: ios.mobileAppId,
              deeplinkUrl: 'acme://item/1',
              linkBehaviour: 'app',
              fallbackEnabled: false,
              platform: 'ANDROID',
              storeUrl: 'https://evil',
            },
          ],
        });
        expect(r.status).toBe(200);
        expect(r.body.response!.deepLinks).toEqual([
          {
            mobileAppId: ios.mobileAppId,
            deeplinkUrl: 'acme://item/1',
            linkBehaviour: 'app',
            fallbackEnabled: false,
            platform: 'IOS',
            storeUrl: 'https://apps.apple.com/app/1',
            appId: ios.appId,
          },
        ]);
        await fx.svc.admin('app', 'update', '--org', biz.id, '--app', ios.mobileAppId, '--store-url', 'https://apps.apple.com/app/2');
        const listed = await biz.client.list<{ data: Link[] }>({ query: `shortCode=${sc}` });
        expect(listed.body.response!.data[0]!.deepLinks[0]).toMatchObject({ platform: 'IOS', storeUrl: 'https://apps.apple.com/app/2' });

        // omitted deepLinks keep the entries; [] clears them
        expect((await biz.client.save<Link>({ url: 'https://e.com/deep', shortCode: sc })).body.response!.deepLinks).toHaveLength(1);
        expect((await biz.client.save<Link>({ url: 'https://e.com/deep', shortCode: sc, deepLinks: [] })).body.response!.deepLinks).toEqual([]);
      });

      it('accepts an entry with mobileAppId but no deeplinkUrl (spec rule 8)', async () => {
        const android = await fx.svc.admin<{ mobileAppId: string }>(
          'app',
          'register',
          '--org',
          biz.id,
          '--name',
          'A',
          '--platform',
          'ANDROID',
          '--store-url',
          'https://play.google.com/x',
        );
        const r = await biz.client.save<Link>({ url: 'https://e.com', deepLinks: [{ mobileAppId: android.mobileAppId }] });
        expect(r.status).toBe(200);
        expect(r.body.response!.deepLinks[0]).toMatchObject({ mobileAppId: android.mobileAppId, platform: 'ANDROID', fallbackEnabled: false });
      });

      it('rejects a javascript: deeplinkUrl and an unknown linkBehaviour', async () => {
        const r = await biz.client.save({ url: 'https://e.com', deepLinks: [{ mobileAppId: 'AAAAAAAAAAAA', deeplinkUrl: 'javascript:alert(1)' }] });
        expect(r.body.errors![0]!.code).toBe('SML002');
        const r2 = await biz.client.save({ url: 'https://e.com', deepLinks: [{ mobileAppId: 'AAAAAAAAAAAA', linkBehaviour: 'teleport' }] });
        expect(r2.body.errors![0]!.code).toBe('VE001');
      });
    });

    describe('save: custom preview metadata', () => {
      it('FREE gets 402 FE001 for enableCustomMetadata=true', async () => {
        const r = await free.client.save({ url: 'https://e.com', enableCustomMetadata: true, customMetadataTitle: 'T' });
        expect(r.status).toBe(402);
        expect(r.body.errors![0]).toMatchObject({
          code: 'FE001',
          details: { kind: 'feature_not_available', feature: 'METADATA_PREVIEW', currentPlan: 'FREE', suggestedUpgradeTo: 'PRO' },
        });
      });

      it('paid plans get the overrides as effectivePreviewMetadata', async () => {
        const r = await biz.client.save<Link>({
          url: 'https://e.com',
          enableCustomMetadata: true,
          customMetadataTitle: 'Title <b>',
          customMetadataDescription: 'Desc',
          customMetadataImageUrl: 'https://img.example/x.png',
        });
        expect(r.status).toBe(200);
        expect(r.body.response!.effectivePreviewMetadata).toEqual({ title: 'Title <b>', description: 'Desc', imageUrl: 'https://img.example/x.png' });
      });
    });
  });
}
