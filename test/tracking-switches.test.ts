// Through `npm start`'s process: an organisation's tracking switches, set with the admin CLI,
// apply to live clicks within 5 s, and a Do-Not-Track visit is still counted, with every visitor
// field null. Another organisation's clicks keep every field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, until } from './support/http-request.ts';
import { bootApi, type ApiFixture, type Org } from './support/api-fixture.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const VISITOR_FIELDS = [
  'referrer',
  'referrerDomain',
  'country',
  'countryCode',
  'city',
  'region',
  'browserName',
  'browserVersion',
  'osName',
  'osVersion',
  'deviceType',
  'deviceBrand',
  'deviceModel',
  'botCategory',
] as const;
/** The most a switch may take to reach the clicks (the decision's bound). */
const APPLIES_WITHIN_MS = 5_000;

type Event = Record<string, string | number | null>;
type Page = { data: Event[]; hasMore: boolean; nextCursor: string | null };

let fx: ApiFixture;
let org: Org;
let other: Org;

beforeAll(async () => {
  fx = await bootApi({ ANALYTICS_SYNC_SETTLE_MS: '50', TRUST_PROXY: 'true' });
  org = await fx.org('BUSINESS');
  other = await fx.org('BUSINESS');
});
afterAll(async () => {
  await fx?.close();
});

const localDay = (offsetDays: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(Date.now() + offsetDays * 86_400_000));

async function events(o: Org, shortCode: string): Promise<Event[]> {
  const out: Event[] = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; body: { response?: Page } } = await o.client.get<Page>(
      `/link/external/v1/analytics/events?from=${localDay(-1)}&to=${localDay(1)}&shortCode=${shortCode}&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(r.status).toBe(200);
    out.push(...(r.body.response as Page).data);
    cursor = (r.body.response as Page).hasMore ? (r.body.response as Page).nextCursor : null;
  } while (cursor);
  return out;
}

async function linkOf(o: Org): Promise<string> {
  const saved = await o.client.save<{ shortCode: string }>({ url: 'https://example.com/landing' });
  return saved.body.response?.shortCode as string;
}

/** One browser click, from a public address, with a referrer; `extra` adds headers (DNT, Sec-GPC). */
async function click(code: string, extra: Record<string, string> = {}): Promise<void> {
  const r = await send(Number(new URL(fx.svc.redirect).port), `/${code}`, {
    host: 'sho.rt',
    headers: {
      'user-agent': CHROME,
      accept: 'text/html',
      referer: 'https://news.example.org/post/1',
      'x-forwarded-for': '8.8.8.8',
      'sec-fetch-dest': 'document',
      'sec-fetch-mode': 'navigate',
      ...extra,
    },
  });
  expect(r.status).toBe(302);
}

async function settled(o: Org, code: string, n: number): Promise<Event[]> {
  let seen: Event[] = [];
  await until(async () => (seen = await events(o, code)).length >= n, 15_000, 200);
  expect(seen).toHaveLength(n);
  return seen;
}

describe('tracking switches', () => {
  it('apply to live clicks within 5 s; flags left out keep their values; another organisation is untouched', async () => {
    const code = await linkOf(org);
    const theirs = await linkOf(other);
    await click(code);
    const [before] = await settled(org, code, 1);
    expect(before).toMatchObject({ referrerDomain: 'news.example.org', countryCode: 'US', browserName: 'Chrome', osName: 'Windows', deviceType: 'DESKTOP' });

    const set = await fx.svc.admin<{ tracking: object }>('org', 'set-tracking', '--org', org.id, '--referrer', 'off', '--user-agent', 'off');
    expect(set.tracking).toEqual({ referrer: false, userAgent: false, geo: 'city', dnt: false });
    await new Promise((r) => setTimeout(r, APPLIES_WITHIN_MS));
    for (let i = 0; i < 5; i++) await click(code);
    await click(theirs);
    const masked = (await settled(org, code, 6)).filter((e) => e.eventId !== before?.eventId);
    for (const e of masked) {
      expect(e).toMatchObject({ eventType: 'CLICK', clickSource: 'DIRECT', shortCode: code, countryCode: 'US', country: 'United States' });
      for (const k of ['referrer', 'referrerDomain', 'browserName', 'browserVersion', 'osName', 'osVersion', 'deviceType', 'deviceBrand', 'deviceModel'])
        expect(e[k], k).toBeNull();
    }
    const [untouched] = await settled(other, theirs, 1);
    expect(untouched).toMatchObject({ referrerDomain: 'news.example.org', browserName: 'Chrome', countryCode: 'US' });

    // --geo alone: the referrer and User-Agent stay off.
    const geo = await fx.svc.admin<{ tracking: object }>('org', 'set-tracking', '--org', org.id, '--geo', 'none');
    expect(geo.tracking).toEqual({ referrer: false, userAgent: false, geo: 'none', dnt: false });
    await new Promise((r) => setTimeout(r, APPLIES_WITHIN_MS));
    await click(code);
    const all = await settled(org, code, 7);
    const last = all.find((e) => !masked.some((m) => m.eventId === e.eventId) && e.eventId !== before?.eventId);
    for (const k of VISITOR_FIELDS) expect(last?.[k], k).toBeNull();

    const bad = await fx.svc.adminRaw('org', 'set-tracking', '--org', org.id, '--geo', 'street');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--geo must be one of city, country, none');
  });

  it('counts a DNT or Sec-GPC visit with every visitor field null once the organisation honours it, and only then', async () => {
    await fx.svc.admin('org', 'set-tracking', '--org', other.id, '--dnt', 'off');
    const code = await linkOf(other);
    await click(code, { dnt: '1' });
    const [ignored] = await settled(other, code, 1);
    expect(ignored).toMatchObject({ referrerDomain: 'news.example.org', browserName: 'Chrome', countryCode: 'US' });

    const set = await fx.svc.admin<{ tracking: object }>('org', 'set-tracking', '--org', other.id, '--dnt', 'on');
    expect(set.tracking).toEqual({ referrer: true, userAgent: true, geo: 'city', dnt: true });
    await new Promise((r) => setTimeout(r, APPLIES_WITHIN_MS));
    await click(code, { dnt: '1' });
    await click(code, { 'sec-gpc': '1' });
    await click(code, { dnt: '0' });
    const all = await settled(other, code, 4);
    const after = all.filter((e) => e.eventId !== ignored?.eventId);
    const anonymous = after.filter((e) => e.referrerDomain === null);
    expect(anonymous).toHaveLength(2);
    for (const e of anonymous) {
      expect(e).toMatchObject({ eventType: 'CLICK', shortCode: code });
      for (const k of VISITOR_FIELDS) expect(e[k], k).toBeNull();
    }
    expect(after.filter((e) => e.referrerDomain === 'news.example.org' && e.browserName === 'Chrome')).toHaveLength(1);
  });
});
