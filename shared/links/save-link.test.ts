// Invariant: saveLink answers with the row it wrote (equal to reading the link back), merges a
// request onto the defaults or the stored link (absent keeps, null clears text and keeps flags),
// asks for a destination preview exactly when a save created a link or changed its url, and a
// bulk save answers each record on its own: Postgres going away in the middle of one is SML006
// per record, never SML001. Tested against a real migrated database.
import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedApp } from '../../test/support/seed.ts';
import { findApps } from '../apps/mobile-app-repository.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { connect, type Sql } from '../db/database.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { bulkSaveLinks } from './bulk-save-links.ts';
import { findLinkByCode } from './link-repository.ts';
import { toLinkResponse } from './link-response.ts';
import { saveLink, type Actor, type LinkServiceDeps } from './save-link.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

const depsOf = (sql: Sql, onDestinationSaved?: LinkServiceDeps['onDestinationSaved']): LinkServiceDeps => ({
  sql,
  shortLinkBase: 'https://sho.rt',
  now: Date.now,
  onDestinationSaved,
});

async function actorOf(name: string): Promise<Actor> {
  return { org: await createOrganization(db.sql, { name, plan: 'BUSINESS' }), attribution: 'api-key:test', via: 'EXTERNAL' };
}

/** The Short URL object of the stored link, read afresh. */
async function readBack(shortCode: string) {
  const link = await findLinkByCode(db.sql, shortCode);
  if (!link) throw new Error(`${shortCode} is not stored`);
  const apps = await findApps(
    db.sql,
    link.orgId,
    link.deepLinks.map((d) => d.mobileAppId),
  );
  return toLinkResponse(link, apps, { shortLinkBase: 'https://sho.rt', includeAppId: true });
}

describe('saveLink', () => {
  it('answers a create and an update with the row as stored, defaults as the base of a create', async () => {
    const actor = await actorOf('save-written');
    const created = await saveLink(depsOf(db.sql), actor, { url: 'https://e.example/w' });
    expect(created.created).toBe(true);
    expect(created.view).toEqual(await readBack(created.view.shortCode));
    expect(created.view).toMatchObject({ isActive: true, cloakEnabled: false, enableCustomMetadata: false, deepLinks: [], createdBy: 'api-key:test' });
    expect(created.view.shortLinkName).toBeUndefined();

    const updated = await saveLink(depsOf(db.sql), actor, { url: 'https://e.example/w2', shortCode: created.view.shortCode, utmSource: 'news' });
    expect(updated.created).toBe(false);
    expect(updated.view).toEqual(await readBack(created.view.shortCode));
    expect(updated.view.updatedAt > created.view.updatedAt).toBe(true);
    expect(updated.view.createdAt).toBe(created.view.createdAt);
  });

  it('merges an update onto the stored link: absent keeps, null clears text and keeps flags', async () => {
    const actor = await actorOf('save-merge');
    const { view } = await saveLink(depsOf(db.sql), actor, {
      url: 'https://e.example/m',
      shortLinkName: 'name',
      utmCampaign: 'spring',
      isActive: false,
      cloakEnabled: true,
    });
    const code = view.shortCode;
    const kept = await saveLink(depsOf(db.sql), actor, { url: 'https://e.example/m', shortCode: code });
    expect(kept.view).toMatchObject({ shortLinkName: 'name', utmCampaign: 'spring', isActive: false, cloakEnabled: true });
    const cleared = await saveLink(depsOf(db.sql), actor, {
      url: 'https://e.example/m',
      shortCode: code,
      shortLinkName: null,
      isActive: null,
      cloakEnabled: null,
    });
    expect(cleared.view.shortLinkName).toBeUndefined();
    expect(cleared.view).toMatchObject({ utmCampaign: 'spring', isActive: false, cloakEnabled: true });
    expect(cleared.view).toEqual(await readBack(code));
  });

  it('keeps the stored deep links of an update that sends none, answered with their apps', async () => {
    const actor = await actorOf('save-deep-links');
    const ios = await seedApp(db.sql, actor.org.id, 'IOS', 'https://apps.apple.com/app/id1');
    const { view } = await saveLink(depsOf(db.sql), actor, {
      url: 'https://e.example/d',
      deepLinks: [{ mobileAppId: ios.mobileAppId, deeplinkUrl: 'acme://d' }],
    });
    const expected = { mobileAppId: ios.mobileAppId, deeplinkUrl: 'acme://d', platform: 'IOS', storeUrl: 'https://apps.apple.com/app/id1', appId: ios.rowId };
    expect(view.deepLinks).toEqual([{ ...expected, fallbackEnabled: false }]);
    const kept = await saveLink(depsOf(db.sql), actor, { url: 'https://e.example/d', shortCode: view.shortCode, deepLinks: null });
    expect(kept.view.deepLinks).toEqual(view.deepLinks);
    expect(kept.view).toEqual(await readBack(view.shortCode));
    const cleared = await saveLink(depsOf(db.sql), actor, { url: 'https://e.example/d', shortCode: view.shortCode, deepLinks: [] });
    expect(cleared.view.deepLinks).toEqual([]);
  });

  it('asks for a preview on create and on a url change, never on an update that keeps the url', async () => {
    const asked: [string, string][] = [];
    const deps = depsOf(db.sql, (url, orgId) => asked.push([url, orgId]));
    const actor = await actorOf('preview-trigger');
    const org = actor.org;

    const { view } = await saveLink(deps, actor, { url: 'https://e.example/a', shortLinkName: 'first' });
    expect(asked).toEqual([['https://e.example/a', org.id]]);
    await saveLink(deps, actor, { url: 'https://e.example/a', shortCode: view.shortCode, shortLinkName: 'renamed', isActive: false });
    await saveLink(deps, actor, { url: 'https://e.example/a', shortCode: view.shortCode, cloakEnabled: true });
    expect(asked).toHaveLength(1);
    await saveLink(deps, actor, { url: 'https://e.example/b', shortCode: view.shortCode });
    expect(asked).toEqual([
      ['https://e.example/a', org.id],
      ['https://e.example/b', org.id],
    ]);
    const [row] = await db.sql<{ url: string; short_link_name: string }[]>`select url, short_link_name from links where short_code = ${view.shortCode}`;
    expect(row).toEqual({ url: 'https://e.example/b', short_link_name: 'renamed' });
  });
});

/** A TCP relay to the test Postgres that can be cut: the server stops listening and every connection drops. */
async function cuttableRelay(target: URL): Promise<{ url: string; cut(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connectTcp(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relayed = new URL(target.href);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: relayed.href,
    cut: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe('bulkSaveLinks', () => {
  it('answers SML006 for each record after Postgres went away in the middle of a bulk save, not SML001', async () => {
    const actor = await actorOf('bulk-outage');
    const relay = await cuttableRelay(new URL(db.url));
    const sql = connect(relay.url, 2);
    const logged: unknown[] = [];
    let firstCode = '';
    try {
      // The first record's preview trigger runs right after its commit: the relay is cut there, so
      // the first record stands on what it wrote and the next two meet a Postgres that is gone.
      const deps = depsOf(sql, () => relay.cut());
      const result = await bulkSaveLinks(
        deps,
        actor,
        { data: [{ url: 'https://e.example/1' }, { url: 'https://e.example/2' }, { url: 'https://e.example/3' }] },
        { error: (obj) => logged.push(obj) },
      );
      expect(result.bulkSaveSummary).toEqual({ successCount: 1, failureCount: 2 });
      expect(result.successRecords[0]).toMatchObject({ url: 'https://e.example/1', isActive: true });
      expect(result.failureRecords.map((f) => f.index)).toEqual([1, 2]);
      for (const f of result.failureRecords) {
        expect(f.errors).toEqual([
          { code: 'SML006', message: 'Service temporarily unavailable', details: { kind: 'dependency_unavailable', retryAfterSeconds: 1 } },
        ]);
      }
      expect(logged).toEqual([]);
      firstCode = result.successRecords[0]?.shortCode ?? '';
    } finally {
      relay.cut();
      await sql.end({ timeout: 1 });
    }
    expect(await readBack(firstCode)).toMatchObject({ url: 'https://e.example/1' });
  });

  it('refuses the whole envelope as before: SML002 for missing, empty or over 30 records, VE001 for a non-array', async () => {
    const actor = await actorOf('bulk-envelope');
    const log = { error: () => {} };
    const refused = async (body: unknown) => {
      try {
        await bulkSaveLinks(depsOf(db.sql), actor, body, log);
      } catch (err) {
        return (err as { errors: { code: string; message: string }[] }).errors.map((e) => `${e.code} ${e.message}`);
      }
      throw new Error('accepted');
    };
    expect(await refused({})).toEqual(['SML002 data: must not be empty']);
    expect(await refused({ data: null })).toEqual(['SML002 data: must not be empty']);
    expect(await refused({ data: [] })).toEqual(['SML002 data: size must be between 1 and 30']);
    expect(await refused({ data: Array.from({ length: 31 }, () => ({ url: 'https://e.example' })) })).toEqual(['SML002 data: size must be between 1 and 30']);
    expect(await refused({ data: 'x' })).toEqual(['VE001 data: must be of type array']);
    expect(await refused([])).toEqual(['VE001 Request body is missing or malformed']);
  });
});
