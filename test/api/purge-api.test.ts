// Invariant: POST /analytics/events/purge and delete's purgeAnalytics over the real API of
// `npm start`, on clicks the redirector recorded: scope analytics:delete, which a key has only
// when given it (403 SML010 otherwise); from/to checked as Browse; dryRun counts and removes
// nothing; a purge answers {"events": N} and then browse, sync, export and aggregates agree; a
// link deleted with purgeAnalytics leaves no event behind, and another link keeps its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkResponseSchema } from '../../shared/links/link-response.ts';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let org: Org;
let plain: Org;

const ALL = 'links:read,links:write,analytics:read,analytics:export,analytics:delete';

beforeAll(async () => {
  fx = await bootApi({ ANALYTICS_SYNC_SETTLE_MS: '100' });
  [org, plain] = await Promise.all([fx.org('BUSINESS', { label: 'purger', scopes: ALL }), fx.org('BUSINESS')]);
});
afterAll(async () => fx?.close());

const PURGE = '/link/external/v1/analytics/events/purge';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const RANGE = () => ({ from: day(-1), to: day(1) });

async function click(code: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${fx.svc.redirect}/${code}`, { redirect: 'manual', headers: { 'user-agent': 'curl/8' } });
    expect(r.status).toBe(302);
  }
}

/** Events of the range: browse (all pages), sync (from the start), export lines and the aggregates total (CLICK). */
async function counts(o: Org, shortCode?: string): Promise<{ browse: number; sync: number; exported: number; aggregates: number }> {
  const filter = shortCode ? `&shortCode=${shortCode}` : '';
  const { from, to } = RANGE();
  const browse = await o.client.get<{ data: unknown[]; hasMore: boolean }>(`/link/external/v1/analytics/events?from=${from}&to=${to}&limit=5000${filter}`);
  const sync = await o.client.get<{ data: unknown[]; hasMore: boolean }>(`/link/external/v1/analytics/events?since=1970-01-01T00:00:00Z&limit=5000${filter}`);
  expect([browse.body.response?.hasMore, sync.body.response?.hasMore]).toEqual([false, false]);
  const file = await fetch(`${fx.svc.api}/link/external/v1/analytics/events/export?from=${from}&to=${to}${filter}`, { headers: { 'x-api-key': o.key } });
  const exported = (await file.text()).split('\n').filter((l) => l !== '').length;
  const agg = await o.client.get<{ total: number }>(`/link/external/v1/analytics/aggregates?from=${from}&to=${to}&groupBy=time${filter}`);
  return { browse: browse.body.response?.data.length ?? -1, sync: sync.body.response?.data.length ?? -1, exported, aggregates: agg.body.response?.total ?? -1 };
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const same = (n: number) => ({ browse: n, sync: n, exported: n, aggregates: n });

describe('purging events over the API', () => {
  it('needs analytics:delete, which a key gets only when given it (403 SML010), and checks from/to as Browse', async () => {
    const denied = await plain.client.post(PURGE, { ...RANGE() });
    expect(denied.status).toBe(403);
    expect(denied.body.errors?.[0]).toMatchObject({ code: 'SML010', message: 'Access denied' });
    const cases: [unknown, number, string, string][] = [
      [{ to: day(0) }, 400, 'SML002', 'from: must not be empty'],
      [{ from: day(0), to: day(0), dryRun: 'yes' }, 400, 'VE001', 'dryRun: must be of type boolean'],
      [{ from: '2026-01-10', to: '2026-01-02' }, 400, 'VE001', 'Invalid date range: from (2026-01-10) must not be after to (2026-01-02).'],
      [{ from: '2026-01-01', to: '2026-07-06' }, 400, 'VE001', 'Date range cannot exceed 186 days. Requested range: 187 days.'],
      [{ from: '2026-02-30', to: '2026-03-01' }, 400, 'VE001', "Invalid date '2026-02-30' for parameter 'from'. Expected YYYY-MM-DD."],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await org.client.post(PURGE, body);
      expect([r.status, r.body.errors?.[0]], JSON.stringify(body)).toEqual([status, { code, message }]);
    }
  });

  it('dryRun counts; a purge of one link answers {"events": N}; then browse, sync, export and aggregates agree, the other link untouched', async () => {
    const a = linkResponseSchema.parse((await org.client.save({ url: 'https://e.example/a' })).body.response).shortCode;
    const b = linkResponseSchema.parse((await org.client.save({ url: 'https://e.example/b' })).body.response).shortCode;
    await click(a, 5);
    await click(b, 3);
    await until(async () => (await counts(org)).sync === 8 && (await counts(org)).aggregates === 8);
    expect(await counts(org)).toEqual(same(8));

    const dry = await org.client.post(PURGE, { ...RANGE(), shortCode: a, dryRun: true });
    expect([dry.status, dry.body.response]).toEqual([200, { events: 5 }]);
    expect(await counts(org)).toEqual(same(8));

    const done = await org.client.post(PURGE, { ...RANGE(), shortCode: a });
    expect([done.status, done.body.response]).toEqual([200, { events: 5 }]);
    expect(await counts(org)).toEqual(same(3));
    expect(await counts(org, a)).toEqual(same(0));
    expect(await counts(org, b)).toEqual(same(3));
    expect((await org.client.post(PURGE, { ...RANGE(), shortCode: a })).body.response).toEqual({ events: 0 });
  });

  it('deleting a link with purgeAnalytics leaves none of its events; without it, its events stay', async () => {
    const keep = linkResponseSchema.parse((await org.client.save({ url: 'https://e.example/keep' })).body.response).shortCode;
    const gone = linkResponseSchema.parse((await org.client.save({ url: 'https://e.example/gone' })).body.response).shortCode;
    await click(keep, 2);
    await click(gone, 4);
    await until(async () => (await counts(org, keep)).aggregates === 2 && (await counts(org, gone)).aggregates === 4);
    expect((await org.client.post('/link/external/v1/shortenedUrl/delete', { shortCode: keep })).status).toBe(200);
    expect(await counts(org, keep)).toEqual(same(2));
    const r = await org.client.post('/link/external/v1/shortenedUrl/delete', { shortCode: gone, purgeAnalytics: true });
    expect(r.status).toBe(200);
    expect(r.body.response).toMatchObject({ shortCode: gone, url: 'https://e.example/gone' });
    expect(await counts(org, gone)).toEqual(same(0));
    expect(await counts(org, keep)).toEqual(same(2));
  });
});
