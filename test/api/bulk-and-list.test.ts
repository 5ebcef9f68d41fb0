import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkSaveResponseSchema, listResponseSchema } from '../../shared/links/link-response.ts';
import { bootApi, findNullPaths, type ApiFixture, type Org } from '../support/api-fixture.ts';

type Link = { shortCode: string; url: string; smartLink: string; createdAt: string; shortLinkName?: string; createdVia: string };
type Bulk = {
  successRecords: Link[];
  failureRecords: { index: number; record: unknown; errors: { code: string; message: string }[] }[];
  bulkSaveSummary: { successCount: number; failureCount: number };
};
type Page = { data: Link[]; page: { size: number; number: number; totalElements: number; totalPages: number } };

let fx: ApiFixture;
let biz: Org;
let other: Org;

beforeAll(async () => {
  fx = await bootApi();
  [biz, other] = await Promise.all([fx.org('BUSINESS'), fx.org('PRO')]);
});
afterAll(async () => fx?.close());

const count = async (org: Org) => (await org.client.list<Page>({ size: 1 })).body.response!.page.totalElements;

describe('bulkSave', () => {
  it('rejects the whole batch with SML002 when data is missing, empty or over 30, processing nothing', async () => {
    const before = await count(biz);
    for (const body of [{}, { data: [] }, { data: null }, { data: Array.from({ length: 31 }, (_, i) => ({ url: `https://e.com/${i}` })) }]) {
      const r = await biz.client.bulk(body);
      expect(r.status).toBe(400);
      expect(r.body.errors![0]!.code).toBe('SML002');
    }
    const over = await biz.client.bulk({ data: Array.from({ length: 31 }, () => ({ url: 'https://e.com' })) });
    expect(over.body.errors![0]!.message).toBe('data: size must be between 1 and 30');
    expect(await count(biz)).toBe(before);
    const notArray = await biz.client.bulk({ data: 'x' });
    expect(notArray.body.errors![0]!.code).toBe('VE001');
  });

  it('processes records in order, each on its own, with failure records carrying index, record and errors', async () => {
    const sc = `bulk-${Date.now()}`;
    const data = [
      { url: 'https://e.com/ok-1', shortLinkName: 'one' },
      { url: '' },
      { url: 'https://e.com/ok-2', shortCode: sc },
      { url: 'https://e.com', shortCode: 'bad' },
      { url: 'https://e.com/ok-3', shortCode: sc, shortLinkName: 'updated' },
      'not an object',
    ];
    const r = await biz.client.bulk<Bulk>({ data });
    expect(r.status).toBe(200);
    const body = bulkSaveResponseSchema.parse(r.body.response);
    expect(body.bulkSaveSummary).toEqual({ successCount: 3, failureCount: 3 });
    expect(body.failureRecords.map((f) => f.index)).toEqual([1, 3, 5]);
    expect(body.failureRecords[0]).toMatchObject({ index: 1, record: { url: '' }, errors: [{ code: 'SML002' }] });
    expect(body.failureRecords[1]!.errors[0]).toMatchObject({ code: 'VE001', details: { reason: 'FORMAT' } });
    expect(body.successRecords[0]).toMatchObject({
      url: 'https://e.com/ok-1',
      shortLinkName: 'one',
      isActive: true,
      createdVia: 'EXTERNAL',
      lastModifiedVia: 'EXTERNAL',
    });
    // the later record with the same shortCode updated the earlier one
    const listed = await biz.client.list<Page>({ query: `shortCode=${sc}` });
    expect(listed.body.response!.data).toHaveLength(1);
    expect(listed.body.response!.data[0]).toMatchObject({ url: 'https://e.com/ok-3', shortLinkName: 'updated' });
    expect(findNullPaths(r.body.response)).toEqual([]);
  });

  it('FREE at the monthly allowance mid-batch: remaining creates fail with QE001, updates succeed', async () => {
    const free = await fx.org('FREE');
    await fx.svc.admin('org', 'set-limits', '--org', free.id, '--links-per-month', '2');
    const sc = `free-upd-${Date.now()}`;
    const r = await free.client.bulk<Bulk>({
      data: [{ url: 'https://e.com/1', shortCode: sc }, { url: 'https://e.com/2' }, { url: 'https://e.com/3' }, { url: 'https://e.com/1b', shortCode: sc }],
    });
    expect(r.body.response!.bulkSaveSummary).toEqual({ successCount: 3, failureCount: 1 });
    expect(r.body.response!.failureRecords[0]).toMatchObject({ index: 2, errors: [{ code: 'QE001' }] });
    expect(await count(free)).toBe(2);
  });
});

describe('list', () => {
  it("pages newest first, with stable page metadata, and only the caller's links", async () => {
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push((await other.client.save<Link>({ url: `https://e.com/p${i}`, shortLinkName: `p${i}` })).body.response!);
    const p0 = await other.client.list<Page>({ page: 0, size: 2 });
    expect(p0.status).toBe(200);
    listResponseSchema.parse(p0.body.response);
    expect(p0.body.response!.page).toEqual({ size: 2, number: 0, totalElements: 5, totalPages: 3 });
    const all = [];
    for (let page = 0; page < 3; page++) all.push(...(await other.client.list<Page>({ page, size: 2 })).body.response!.data);
    expect(all.map((l) => l.shortCode)).toEqual(mine.reverse().map((l) => l.shortCode));
    const beyond = await other.client.list<Page>({ page: 9, size: 2 });
    expect(beyond.body.response!.data).toEqual([]);
    const defaults = await other.client.list<Page>();
    expect(defaults.body.response!.page).toMatchObject({ size: 20, number: 0 });
  });

  it.each<Record<string, number>>([{ size: 0 }, { size: 101 }, { page: -1 }])('rejects %j with SML002', async (params) => {
    const r = await other.client.list(params);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.code).toBe('SML002');
  });

  it('shortCode= is exact: one link, or 200 with empty data (never 404)', async () => {
    const l = (await other.client.save<Link>({ url: 'https://e.com/exact' })).body.response!;
    expect((await other.client.list<Page>({ query: `shortCode=${l.shortCode}` })).body.response!.data.map((x) => x.shortCode)).toEqual([l.shortCode]);
    const none = await other.client.list<Page>({ query: 'shortCode=doesNotExist1' });
    expect(none.status).toBe(200);
    expect(none.body.response!.data).toEqual([]);
    // another organisation's code is invisible
    expect((await biz.client.list<Page>({ query: `shortCode=${l.shortCode}` })).body.response!.data).toEqual([]);
  });

  it('filters with AND/OR, parentheses, quotes and case-insensitive enums', async () => {
    await other.client.save({ url: 'https://e.com/q1', shortLinkName: 'summer sale', cloakEnabled: true });
    await fx.svc.admin('link', 'create', '--org', other.id, '--url', 'https://e.com/q2', '--by', 'ops@x.test');
    const q = async (query: string) => (await other.client.list<Page>({ query, size: 100 })).body.response!.data.map((l) => l.url).sort();
    expect(await q('shortLinkName="summer sale"')).toEqual(['https://e.com/q1']);
    expect(await q('createdVia=internal')).toEqual(['https://e.com/q2']);
    expect(await q('cloakEnabled=true OR createdBy=ops@x.test')).toEqual(['https://e.com/q1', 'https://e.com/q2']);
    expect(await q('(cloakEnabled = true or url=https://e.com/q2) and createdVia=EXTERNAL')).toEqual(['https://e.com/q1']);
    expect(await q('url=https://e.com/q2 AND lastModifiedVia=INTERNAL')).toEqual(['https://e.com/q2']);
  });

  it('rejects an unknown enum value with the spec message, and bad syntax with a position', async () => {
    const r = await other.client.list({ query: 'createdVia=FOO' });
    expect(r.status).toBe(400);
    expect(r.body.errors![0]).toEqual({ code: 'VE001', message: "Invalid value 'FOO' for enum ChangeSource" });
    const s = await other.client.list({ query: 'foo=1' });
    expect(s.body.errors![0]!.code).toBe('VE001');
    expect(s.body.errors![0]!.message).toContain('position 0');
    const b = await other.client.list({ query: 'isActive=maybe' });
    expect(b.body.errors![0]!.code).toBe('VE001');
  });
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, public, generated from the request schema, and lists every path and error code', async () => {
    const r = await fetch(`${fx.svc.api}/link/external/v1/openapi.json`);
    expect(r.status).toBe(200);
    const doc = (await r.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      'x-error-codes': Record<string, unknown>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/link/external/v1/shortenedUrl/save',
        '/link/external/v1/shortenedUrl/bulkSave',
        '/link/external/v1/shortenedUrl/resolve',
        '/link/external/v1/shortenedUrl',
        '/link/external/v1/analytics/events',
        '/link/external/v1/analytics/events/export',
      ]),
    );
    expect(Object.keys(doc.components.schemas.SaveLinkRequest!.properties!)).toEqual(
      expect.arrayContaining(['url', 'shortCode', 'deepLinks', 'cloakEnabled', 'expiresAt', 'maxClicks', 'expiredUrl', 'password', 'rules']),
    );
    expect(Object.keys(doc['x-error-codes'])).toHaveLength(16);
  });

  it('an unknown path answers the envelope with 404, never an HTML page', async () => {
    const r = await biz.client.get('/link/external/v1/nope');
    expect(r.status).toBe(404);
    expect(r.body.errors![0]!.code).toBe('EN001');
  });
});
