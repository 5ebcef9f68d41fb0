// The analytics endpoints through the booted service: validation messages verbatim, export
// gating and formats, and the rate-limit scopes of analytics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let biz: Org;

beforeAll(async () => {
  fx = await bootApi({ ANALYTICS_SYNC_SETTLE_MS: '100' });
  biz = await fx.org('BUSINESS');
});
afterAll(async () => fx?.close());

const events = (org: Org, q: string) => org.client.get(`/link/external/v1/analytics/events?${q}`);
const exportRaw = (org: Org, q: string) => fetch(`${fx.svc.api}/link/external/v1/analytics/events/export?${q}`, { headers: { 'x-api-key': org.key } });

describe('analytics: validation (spec messages verbatim)', () => {
  it.each([
    ['', 'Must specify either browse mode (from/to) or sync mode (since) parameters.'],
    ['limit=5', 'Must specify either browse mode (from/to) or sync mode (since) parameters.'],
    ['from=2026-01-01&to=2026-07-06', 'Date range cannot exceed 186 days. Requested range: 187 days.'],
  ])('%j → 400 VE001 %j', async (q, message) => {
    const r = await events(biz, q);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]).toMatchObject({ code: 'VE001', message });
  });

  it.each([
    'from=2026-01-01&to=2026-01-02&since=2026-01-01T00:00:00Z',
    'from=2026-01-10&to=2026-01-02',
    'from=2026-01-01&to=2026-01-02&format=csv',
    'since=2026-01-01T00:00:00Z&format=json',
    'from=2026-01-01&to=2026-01-02&clickSource=TELEPATHY',
    'from=2026-01-01&to=2026-01-02&eventType=VIEW',
    'since=yesterday',
    'from=2026-02-30&to=2026-03-01',
  ])('%j → 400 VE001', async (q) => {
    const r = await events(biz, q);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.code).toBe('VE001');
  });

  it('lists the valid values of a bad enum filter', async () => {
    const r = await events(biz, 'from=2026-01-01&to=2026-01-02&clickSource=TELEPATHY');
    for (const v of ['DIRECT', 'QR_CODE', 'API', 'EMBED', 'UNKNOWN']) expect(r.body.errors![0]!.message).toContain(v);
  });

  it('186 inclusive days are allowed; an empty range answers the browse shape', async () => {
    const r = await events(biz, 'from=2026-01-01&to=2026-07-05');
    expect(r.status).toBe(200);
    expect(r.body.response).toMatchObject({ data: [], hasMore: false, nextSince: null, afterEventId: null });
    const s = await events(biz, 'since=2026-01-01T00:00:00');
    expect(s.status).toBe(200);
    expect(s.body.response).toMatchObject({ data: [], hasMore: false, nextCursor: null });
  });

  it('limit above 5000 is rejected', async () => {
    const r = await events(biz, 'from=2026-01-01&to=2026-01-02&limit=5001');
    expect(r.status).toBe(400);
  });
});

describe('analytics: export gating and formats', () => {
  it.each(['FREE', 'PRO'])('%s gets 402 FE001 ANALYTICS_EXPORT', async (plan) => {
    const org = await fx.org(plan);
    const r = await org.client.get('/link/external/v1/analytics/events/export?from=2026-01-01&to=2026-01-02');
    expect(r.status).toBe(402);
    expect(r.body.errors![0]).toMatchObject({
      code: 'FE001',
      details: { kind: 'feature_not_available', feature: 'ANALYTICS_EXPORT', currentPlan: plan, suggestedUpgradeTo: 'BUSINESS' },
    });
  });

  it('rejects since on export with the documented message', async () => {
    const r = await biz.client.get('/link/external/v1/analytics/events/export?since=2026-01-01T00:00:00Z');
    expect(r.status).toBe(400);
    expect(r.body.errors![0]).toMatchObject({ code: 'VE001', message: 'since is not allowed on export; use from/to' });
  });

  it('streams NDJSON by default and CSV with its header row', async () => {
    const nd = await exportRaw(biz, 'from=2026-01-01&to=2026-01-02');
    expect(nd.status).toBe(200);
    expect(nd.headers.get('content-type')).toContain('ndjson');
    expect(await nd.text()).toBe('');
    const csv = await exportRaw(biz, 'from=2026-01-01&to=2026-01-02&format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(await csv.text()).toBe(
      'eventId,schemaVersion,createdAt,shortCode,shortUrlId,eventType,clickSource,referrer,referrerDomain,country,countryCode,city,region,browserName,browserVersion,osName,osVersion,deviceType,deviceBrand,deviceModel,utmSource,utmMedium,utmCampaign,botCategory\r\n',
    );
    const bad = await exportRaw(biz, 'from=2026-01-01&to=2026-01-02&format=xml');
    expect(bad.status).toBe(400);
  });
});

describe('analytics: scopes and rate limits', () => {
  it('needs analytics:read / analytics:export scopes', async () => {
    const org = await fx.org('BUSINESS', { label: 'links only', scopes: 'links:read,links:write' });
    expect((await events(org, 'from=2026-01-01&to=2026-01-02')).status).toBe(403);
    expect((await org.client.get('/link/external/v1/analytics/events/export?from=2026-01-01&to=2026-01-02')).status).toBe(403);
  });

  it('analytics_events and analytics_export are buckets of their own, independent of crud', async () => {
    const org = await fx.org('BUSINESS', { limits: ['--analytics-per-min', '2', '--export-per-min', '1', '--crud-per-min', '1'] });
    expect((await org.client.list()).status).toBe(200);
    expect((await org.client.list()).status).toBe(429);
    expect((await events(org, 'from=2026-01-01&to=2026-01-02')).status).toBe(200);
    expect((await events(org, 'from=2026-01-01&to=2026-01-02')).status).toBe(200);
    const limited = await events(org, 'from=2026-01-01&to=2026-01-02');
    expect(limited.status).toBe(429);
    expect(limited.body.errors![0]!.details).toMatchObject({ kind: 'rate_limit_exceeded', scope: 'analytics_events', limitPerMin: 2 });
    expect((await exportRaw(org, 'from=2026-01-01&to=2026-01-02')).status).toBe(200);
    const exp = await org.client.get('/link/external/v1/analytics/events/export?from=2026-01-01&to=2026-01-02');
    expect(exp.status).toBe(429);
    expect(exp.body.errors![0]!.details).toMatchObject({ scope: 'analytics_export', limitPerMin: 1 });
  });
});

describe('analytics: aggregates', () => {
  const aggregates = (org: Org, q: string) => org.client.get(`/link/external/v1/analytics/aggregates?${q}`);

  it.each([
    ['from=2026-01-01&to=2026-01-02', 'VE001', "Parameter 'groupBy' is required. Valid values: time, shortCode"],
    ['from=2026-01-01&to=2026-01-02&groupBy=city', 'VE001', "Invalid value 'city' for parameter 'groupBy'. Valid values: time, shortCode"],
    ['from=2026-01-01&to=2026-01-02&groupBy=time&interval=minute', 'VE001', 'Valid values: hour, day, week, month'],
    ['from=2026-01-01&to=2026-07-06&groupBy=time', 'VE001', 'Date range cannot exceed 186 days. Requested range: 187 days.'],
    ['from=2026-01-10&to=2026-01-02&groupBy=time', 'VE001', 'Invalid date range'],
    ['groupBy=time', 'VE001', 'Aggregates require from and to parameters.'],
    ['from=2026-01-01&to=2026-01-02&groupBy=countryCode&limit=101', 'SML002', 'limit: must be between 1 and 100'],
    ['from=2026-01-01&to=2026-01-02&groupBy=countryCode&deviceType=WATCH', 'VE001', 'MOBILE, DESKTOP, TABLET'],
  ])('%j → 400 %s', async (q, code, message) => {
    const r = await aggregates(biz, q);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.code).toBe(code);
    expect(r.body.errors![0]!.message).toContain(message);
  });

  it('answers in the organisation’s time zone, zero-filled, echoing the dates; unknown values match nothing', async () => {
    const r = await aggregates(biz, 'from=2026-03-29&to=2026-03-29&groupBy=time');
    expect(r.status).toBe(200);
    const response = r.body.response as { groupBy: string; interval: string; timeZone: string; from: string; to: string; total: number; data: unknown[] };
    expect(response).toMatchObject({ groupBy: 'time', interval: 'hour', timeZone: 'Europe/Berlin', from: '2026-03-29', to: '2026-03-29', total: 0 });
    expect(response.data).toHaveLength(23);
    expect(response.data[2]).toEqual({ key: '2026-03-29T03:00:00+02:00', events: 0 });
    const top = await aggregates(biz, 'from=2026-03-29&to=2026-03-29&groupBy=referrerDomain&countryCode=ZZ&referrerDomain=nowhere.example');
    expect(top.body.response).toEqual({ groupBy: 'referrerDomain', timeZone: 'Europe/Berlin', from: '2026-03-29', to: '2026-03-29', total: 0, data: [] });
  });

  it('needs analytics:read and spends the analytics_events bucket', async () => {
    const links = await fx.org('BUSINESS', { label: 'links only', scopes: 'links:read,links:write' });
    expect((await aggregates(links, 'from=2026-01-01&to=2026-01-02&groupBy=time')).status).toBe(403);
    const org = await fx.org('BUSINESS', { limits: ['--analytics-per-min', '1'] });
    expect((await events(org, 'from=2026-01-01&to=2026-01-02')).status).toBe(200);
    const limited = await aggregates(org, 'from=2026-01-01&to=2026-01-02&groupBy=time');
    expect(limited.status).toBe(429);
    expect(limited.body.errors![0]!.details).toMatchObject({ scope: 'analytics_events' });
  });
});
