// End to end through `npm start`'s process: links saved over the API, visited on the uWS
// redirector, events enriched and batched into chDB, read back through browse, sync and export,
// and still there after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, until } from './support/http-request.ts';
import { bootApi, type ApiFixture, type Org } from './support/api-fixture.ts';
import { apiClient, startService, type ServiceProcess } from './support/service-process.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';

type Event = Record<string, string | number | null>;
type Page = { data: Event[]; hasMore: boolean; nextCursor: string | null; nextSince: string | null; afterEventId: string | null };

let fx: ApiFixture;
let svc: ServiceProcess;
let org: Org;
const env = { ANALYTICS_SYNC_SETTLE_MS: '50', TRUST_PROXY: 'true' };

beforeAll(async () => {
  fx = await bootApi(env);
  svc = fx.svc;
  org = await fx.org('BUSINESS');
});
afterAll(async () => {
  await svc?.stop();
  await fx?.close();
});

const port = (s: ServiceProcess) => Number(new URL(s.redirect).port);
/**
 * The days around now in the organisation's time zone (Europe/Berlin, the default): browse and
 * export select by local day, so a UTC date would miss every click made between 23:00 and 24:00
 * UTC, and a range of one day would miss those made just before a midnight the test crosses.
 */
const ORG_TIME_ZONE = 'Europe/Berlin';
const localDay = (offsetDays: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ORG_TIME_ZONE }).format(new Date(Date.now() + offsetDays * 86_400_000));
const days = (): string => `from=${localDay(-1)}&to=${localDay(1)}`;
const browseAll = async (o: Org, q = ''): Promise<Event[]> => {
  const out: Event[] = [];
  let cursor: string | null = null;
  do {
    const r: Awaited<ReturnType<typeof o.client.get<Page>>> = await o.client.get<Page>(
      `/link/external/v1/analytics/events?${days()}&limit=2${cursor ? `&cursor=${cursor}` : ''}${q}`,
    );
    expect(r.status).toBe(200);
    out.push(...r.body.response!.data);
    cursor = r.body.response!.hasMore ? r.body.response!.nextCursor : null;
  } while (cursor);
  return out;
};

describe('clicks end to end', () => {
  let code: string;

  it('redirects with UTM tags and records an enriched CLICK; a crawler gets OG tags and a METADATA_PREVIEW', async () => {
    const saved = await org.client.save<{ shortCode: string }>({
      url: 'https://example.com/landing?utm_source=old&keep=1#frag',
      utmSource: 'newsletter',
      utmCampaign: 'launch',
      enableCustomMetadata: true,
      customMetadataTitle: 'Launch <day>',
    });
    code = saved.body.response!.shortCode;
    const click = await send(port(svc), `/${code}`, {
      host: 'sho.rt',
      headers: {
        'user-agent': CHROME,
        accept: 'text/html',
        referer: 'https://news.example.org/post/1',
        'x-forwarded-for': '8.8.8.8',
        'sec-fetch-dest': 'document',
        'sec-fetch-mode': 'navigate',
      },
    });
    expect(click.status).toBe(302);
    expect(click.headers['cache-control']).toBe('private, max-age=0');
    const location = new URL(click.headers.location!);
    expect(location.searchParams.get('utm_source')).toBe('newsletter');
    expect(location.searchParams.get('utm_campaign')).toBe('launch');
    expect(location.searchParams.get('keep')).toBe('1');
    expect(location.hash).toBe('#frag');

    const preview = await send(port(svc), `/${code}`, { host: 'sho.rt', headers: { 'user-agent': FACEBOOK } });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('og:title');
    expect(preview.text).toContain('Launch &lt;day&gt;');
    expect(preview.text).not.toContain('Launch <day>');

    // HEAD answers alike and records nothing
    expect((await send(port(svc), `/${code}`, { method: 'HEAD', host: 'sho.rt', headers: { 'user-agent': CHROME } })).status).toBe(302);

    let events: Event[] = [];
    await until(async () => (events = await browseAll(org)).length >= 2, 10_000, 200);
    await new Promise((r) => setTimeout(r, 1500)); // a HEAD event, if one were recorded, would have flushed by now
    events = await browseAll(org);
    expect(events).toHaveLength(2);
    const c = events.find((e) => e.eventType === 'CLICK')!;
    expect(c).toMatchObject({
      schemaVersion: 1,
      shortCode: code,
      clickSource: 'DIRECT',
      referrer: 'https://news.example.org/post/1',
      referrerDomain: 'news.example.org',
      countryCode: 'US',
      browserName: 'Chrome',
      osName: 'Windows',
      deviceType: 'DESKTOP',
      utmSource: 'newsletter',
      utmCampaign: 'launch',
    });
    expect(String(c.eventId)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(String(c.createdAt)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);
    expect(events.find((e) => e.eventType === 'METADATA_PREVIEW')).toMatchObject({ shortCode: code });
    expect((await browseAll(org, '&eventType=METADATA_PREVIEW')).map((e) => e.eventType)).toEqual(['METADATA_PREVIEW']);
    // The person and the unfurler, set apart by bots=
    expect(c.botCategory).toBeNull();
    expect((await browseAll(org, '&bots=exclude')).map((e) => [e.eventType, e.botCategory])).toEqual([['CLICK', null]]);
    expect((await browseAll(org, '&bots=only')).map((e) => [e.eventType, e.botCategory])).toEqual([['METADATA_PREVIEW', 'LINK_PREVIEW']]);
    const bad = await org.client.get(`/link/external/v1/analytics/events?${days()}&bots=no`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors![0]).toMatchObject({ code: 'VE001', message: "Invalid value 'no' for parameter 'bots'. Valid values: include, exclude, only" });
  });

  it('sync continues after new events, never repeating or missing one', async () => {
    const first = await org.client.get<Page>('/link/external/v1/analytics/events?since=2020-01-01T00:00:00Z&limit=1');
    expect(first.body.response!.nextCursor).toBeNull();
    const seen = [...first.body.response!.data];
    let { nextSince, afterEventId } = first.body.response!;
    const next = async () => {
      const r = await org.client.get<Page>(`/link/external/v1/analytics/events?since=${encodeURIComponent(nextSince!)}&afterEventId=${afterEventId}&limit=1`);
      seen.push(...r.body.response!.data);
      ({ nextSince, afterEventId } = r.body.response!);
      return r.body.response!;
    };
    while ((await next()).hasMore);
    expect(seen).toHaveLength(2);
    for (let i = 0; i < 3; i++) await send(port(svc), `/${code}?qr=1`, { host: 'sho.rt', headers: { 'user-agent': CHROME } });
    await until(
      async () => {
        await next();
        return seen.length >= 5;
      },
      10_000,
      200,
    );
    await next();
    expect(seen).toHaveLength(5);
    expect(new Set(seen.map((e) => e.eventId)).size).toBe(5);
    expect(seen.slice(2).map((e) => e.clickSource)).toEqual(['QR_CODE', 'QR_CODE', 'QR_CODE']);
  });

  it('exports what browse shows, and the events survive a restart', async () => {
    const nd = await fetch(`${svc.api}/link/external/v1/analytics/events/export?${days()}`, { headers: { 'x-api-key': org.key } });
    const lines = (await nd.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    expect(lines.map((e) => e.eventId)).toEqual((await browseAll(org)).map((e) => e.eventId));

    expect(await svc.stop('SIGTERM')).toBe(0);
    svc = await startService({ DATABASE_URL: fx.db.url, DATA_DIR: fx.svc.env.DATA_DIR!, ...env });
    const again = await browseAll({ ...org, client: apiClient(svc.api, org.key) });
    expect(again.map((e) => e.eventId)).toEqual(lines.map((e) => e.eventId));
  });
});
