// Invariant: integers, instants, dates and cursors in a query are read strictly: a value that is
// malformed or outside what the service can represent (beyond the page bound, beyond the
// analytics store's time range, or a cursor position no event can have) is 400 VE001, never a
// wrapped number, a 500 or a silently empty page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let org: Org;

beforeAll(async () => {
  fx = await bootApi();
  org = await fx.org('BUSINESS');
}, 120_000);

afterAll(async () => {
  await fx?.close();
});

const cursorOf = (micros: string, eventId = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b') => Buffer.from(JSON.stringify([micros, eventId])).toString('base64url');
const codeOf = async (path: string) => {
  const r = await org.client.get(path);
  return `${r.status} ${r.body.errors?.[0]?.code ?? 'ok'}`;
};

describe('strict number, instant and cursor parsing', () => {
  it.each([
    ['page beyond the bound', '/link/external/v1/shortenedUrl?page=1000001'],
    ['page of 20 digits', '/link/external/v1/shortenedUrl?page=99999999999999999999'],
    ['page at the float limit', '/link/external/v1/shortenedUrl?page=9007199254740993'],
    ['size of 20 digits', '/link/external/v1/shortenedUrl?size=99999999999999999999'],
    ['page in exponent form', '/link/external/v1/shortenedUrl?page=1e3'],
    ['page in hex', '/link/external/v1/shortenedUrl?page=0x10'],
    ['fractional size', '/link/external/v1/shortenedUrl?size=2.5'],
    ['limit of 20 digits', '/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&limit=99999999999999999999'],
    ['limit as Infinity', '/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&limit=Infinity'],
    ['limit 1e309', '/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&limit=1e309'],
    ['since before the store range', '/link/external/v1/analytics/events?since=0001-01-01T00:00:00Z'],
    ['since after the store range', '/link/external/v1/analytics/events?since=9999-12-31T23:59:59Z'],
    ['from/to before the store range', '/link/external/v1/analytics/events?from=0001-01-01&to=0001-01-02'],
    ['export from/to after the store range', '/link/external/v1/analytics/events/export?from=9999-12-01&to=9999-12-02'],
    ['cursor beyond int64', `/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&cursor=${cursorOf('9999999999999999999')}`],
    ['cursor before the store range', `/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&cursor=${cursorOf('-9223372036854775808')}`],
    ['cursor far in the future', `/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&cursor=${cursorOf('99999999999999999')}`],
    ['cursor that is not base64 JSON', '/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&cursor=%%%'],
  ])('%s → 400 VE001', async (_name, path) => {
    expect(await codeOf(path)).toBe('400 VE001');
  });

  it('keeps the documented constraint codes and accepts edge values that are in range', async () => {
    expect(await codeOf('/link/external/v1/shortenedUrl?size=0')).toBe('400 SML002');
    expect(await codeOf('/link/external/v1/shortenedUrl?size=101')).toBe('400 SML002');
    expect(await codeOf('/link/external/v1/shortenedUrl?page=1000000&size=100')).toBe('200 ok');
    expect(await codeOf('/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&limit=0')).toBe('400 SML002');
    expect(await codeOf('/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&limit=5000')).toBe('200 ok');
    expect(await codeOf('/link/external/v1/analytics/events?since=1970-01-01T00:00:00Z')).toBe('200 ok');
    expect(await codeOf(`/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&cursor=${cursorOf('1767225600000000')}`)).toBe('200 ok');
  });
});
