// Invariant: black-box tests of one redirector (embedded mode: no Redis) booted on port 0 against
// a migrated Postgres seeded by SQL; every assertion is made on real HTTP answers, on the hits the
// sink received, or on usage_counters. They cover what the pure decision tests cannot: transport
// (headers read, bodies and headers written, HEAD, routing), caching and invalidation, client
// aborts, and the quota protocol across requests. Writes are announced on the bus the way the API and the
// admin CLI do: bus.publish() after the SQL committed.
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import QRCode from 'qrcode';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/servers.ts';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { send, until } from '../test/support/http-request.ts';
import { bigHeaderRequest, headerFlood, rawRequest } from '../test/support/refused-requests.ts';
import { LINGER_MS } from '../shared/net/lingering-close.ts';
import { seedApp, seedDomain, seedLink, seedOrg } from '../test/support/seed.ts';
import { OutboxRelay } from '../shared/bus/outbox-relay.ts';
import { addDomain } from '../shared/domains/domain-repository.ts';
import { getOrganization } from '../shared/orgs/org-repository.ts';
import { memoryRedirectorPorts } from '../test/support/redirector-ports.ts';

const DEFAULT_HOST = 'sho.rt';
const BROWSER = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
};
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

let db: TestDatabase;
let bus: MemoryInvalidationBus;
let sink: MemoryHitSink;
let server: RedirectorServer;
let port: number;
const registry = new Registry();

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  bus = new MemoryInvalidationBus();
  sink = new MemoryHitSink();
  server = await createRedirectorServer({
    sql: db.sql,
    bus,
    ...memoryRedirectorPorts(db.sql),
    hitSink: sink,
    metricsRegistry: registry,
    usageFlushIntervalMs: 100,
    config: {
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: 0,
      LINK_CACHE_ENTRIES: 10_000,
      TRUST_PROXY: { kind: 'hops', hops: 0 },
      DEFAULT_SHORT_DOMAIN: DEFAULT_HOST,
    },
  });
  port = server.port;
});

afterAll(async () => {
  await server?.close();
  await bus?.close();
  await db?.drop();
});

beforeEach(() => sink.clear());

const get = (path: string, opts: { host?: string; headers?: Record<string, string>; method?: string } = {}) => send(port, path, opts);

describe('plain redirect', () => {
  it('302 to the destination with UTM merged, private cache, one CLICK hit with request facts', async () => {
    const org = await seedOrg(db.sql);
    const { id, shortCode } = await seedLink(db.sql, {
      orgId: org,
      url: 'https://shop.example/p?a=1&utm_source=old&b=%20x#frag',
      utmSource: 'news letter',
      utmCampaign: 'spring',
    });
    const res = await get(`/${shortCode}`, { headers: { ...BROWSER, referer: 'https://ref.example/page' } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://shop.example/p?a=1&utm_source=news%20letter&b=%20x&utm_campaign=spring#frag');
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    expect(sink.hits).toHaveLength(1);
    expect(sink.hits[0]).toMatchObject({
      link: { orgId: org, id, shortCode, utmSource: 'news letter', utmMedium: null, utmCampaign: 'spring' },
      eventType: 'CLICK',
      clickSource: 'DIRECT',
      referrer: 'https://ref.example/page',
      userAgent: BROWSER['user-agent'],
      ip: '127.0.0.1',
    });
    const micros = sink.hits[0]!.clickedAtMicros;
    expect(Number.isSafeInteger(micros)).toBe(true);
    expect(micros / 1000).toBeGreaterThan(Date.now() - 10_000);
    expect(micros / 1000).toBeLessThanOrEqual(Date.now());
  });

  it('classifies the click source: QR_CODE, EMBED, API, DIRECT, UNKNOWN', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    await get(`/${shortCode}?qr=1`, { headers: BROWSER });
    await get(`/${shortCode}`, { headers: { ...BROWSER, 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate' } });
    await get(`/${shortCode}`, { headers: { accept: 'application/json' } });
    await get(`/${shortCode}`, { headers: BROWSER });
    await get(`/${shortCode}`, { headers: { 'user-agent': 'curl/8.5.0', accept: '*/*' } });
    expect(sink.hits.map((h) => h.clickSource)).toEqual(['QR_CODE', 'EMBED', 'API', 'DIRECT', 'UNKNOWN']);
  });

  it('HEAD answers like GET and records nothing', async () => {
    const org = await seedOrg(db.sql, 'FREE', 1);
    const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://head.example/' });
    for (let i = 0; i < 3; i++) {
      const res = await get(`/${shortCode}`, { method: 'HEAD', headers: BROWSER });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://head.example/');
      expect(res.body.length).toBe(0);
    }
    expect(sink.hits).toHaveLength(0);
    // HEAD counted no click: the single allowed click of this FREE org is still available.
    expect((await get(`/${shortCode}`)).status).toBe(302);
  });
});

describe('errors', () => {
  it('unknown code → 404 EN001 JSON for non-browsers, escaped HTML for browsers; nothing recorded', async () => {
    const json = await get('/nosuchcode1', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.text)).toEqual({ errors: [{ code: 'EN001', message: "Short URL with shortCode 'nosuchcode1' not found" }] });
    const html = await get('/nosuchcode1', { headers: BROWSER });
    expect(html.status).toBe(404);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('EN001');
    expect(html.text).toContain('Short URL with shortCode &#39;nosuchcode1&#39; not found');
    const odd = await get('/a%3Cb%3E/x/y', { headers: BROWSER });
    expect(odd.status).toBe(404);
    expect(odd.text).not.toMatch(/<b>/);
    expect(sink.hits).toHaveLength(0);
  });

  it('archived → 410 EN002 "Link is no longer active"', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org, isActive: false });
    const res = await get(`/${shortCode}`);
    expect(res.status).toBe(410);
    expect(JSON.parse(res.text)).toEqual({ errors: [{ code: 'EN002', message: 'Link is no longer active' }] });
    expect(sink.hits).toHaveLength(0);
  });

  it('other methods → 405 (POST /:code is a password form: an unknown code 404); /healthz, /readyz; /metrics is not served here but read from the registry', async () => {
    expect((await get('/abcdefg', { method: 'PUT' })).status).toBe(405);
    expect((await get('/abcdefg/x', { method: 'POST' })).status).toBe(405);
    expect((await get('/abcdefg', { method: 'POST', headers: { accept: 'application/json' } })).status).toBe(404);
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toEqual({ response: { status: 'ok' } });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ response: { status: 'ready' } });
    const metrics = await get('/metrics'); // answered like any unknown code
    expect(metrics.status).toBe(404);
    expect(JSON.parse(metrics.text)).toEqual({ errors: [{ code: 'EN001', message: "Short URL with shortCode 'metrics' not found" }] });
    // The hot counters reach Prometheus through the registry (served on METRICS_PORT by main.ts).
    // Click usage is flushed on a 100 ms timer, after its Postgres write: wait for the first one.
    for (let i = 0; i < 100 && !/^redirector_usage_flushes_total [1-9]/m.test(await registry.metrics()); i++) await new Promise((r) => setTimeout(r, 50));
    const text = await registry.metrics();
    expect(text).toMatch(/^redirector_requests_total\{outcome="redirect"\} [1-9]/m);
    expect(text).toMatch(/^redirector_cache_hits_total\{kind="link",tier="lru"\} [1-9]/m);
    expect(text).toMatch(/^redirector_event_queue_depth \d+/m);
    expect(text).toMatch(/^redirector_usage_flushes_total [1-9]/m);
    expect(text).toMatch(/^# TYPE redirector_requests_total counter$/m);
  });
});

/** The value of one labelled series in the registry at this moment (0 when absent). */
async function seriesValue(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  const { values } = await metric.get();
  const found = values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
  return found?.value;
}

describe('cache tiers in Prometheus', () => {
  it('a link read twice is one LRU miss (loaded from Postgres) then one LRU hit; without a Redis tier there is no Redis miss series', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    const link = (tier: string) => ({ kind: 'link', tier });
    const hits0 = (await seriesValue('redirector_cache_hits_total', link('lru'))) ?? 0;
    const misses0 = (await seriesValue('redirector_cache_misses_total', link('lru'))) ?? 0;
    expect((await get(`/${shortCode}`, { headers: BROWSER })).status).toBe(302);
    expect(await seriesValue('redirector_cache_misses_total', link('lru'))).toBe(misses0 + 1);
    expect((await seriesValue('redirector_cache_hits_total', link('lru'))) ?? 0).toBe(hits0);
    expect((await get(`/${shortCode}`, { headers: BROWSER })).status).toBe(302);
    expect(await seriesValue('redirector_cache_hits_total', link('lru'))).toBe(hits0 + 1);
    expect(await seriesValue('redirector_cache_misses_total', link('lru'))).toBe(misses0 + 1);
    expect(await seriesValue('redirector_cache_misses_total', link('redis'))).toBeUndefined();
    expect(await registry.getSingleMetricAsString('redirector_cache_misses_total')).toMatch(/^# TYPE redirector_cache_misses_total counter$/m);
  });
});

describe('aborts', () => {
  it('clients that hang up before an uncached answer cost nothing: no error, no hit, the server serves on', async () => {
    const org = await seedOrg(db.sql);
    const codes = await Promise.all(Array.from({ length: 20 }, () => seedLink(db.sql, { orgId: org }).then((l) => l.shortCode)));
    const loaded = () => server.metricsSnapshot()['redirector_cache_hits_total{kind="link",tier="postgres"}'] ?? 0;
    const loaded0 = loaded();
    await Promise.all(
      codes.map(
        (code) =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write(`GET /${code} HTTP/1.1\r\nHost: ${DEFAULT_HOST}\r\n\r\n`);
              socket.destroy(); // gone before the Postgres load answers
              resolve();
            });
          }),
      ),
    );
    // Every hung-up request's load has come back (and its answer was dropped) before counting.
    await until(() => loaded() >= loaded0 + codes.length, 5_000, 10);
    expect(server.metricsSnapshot().redirector_internal_errors_total ?? 0).toBe(0);
    expect(sink.hits).toHaveLength(0);
    const res = await get(`/${codes[0]}`);
    expect(res.status).toBe(302);
    expect(sink.hits).toHaveLength(1);
  });
});

describe('host rules', () => {
  it('a custom domain serves only its organisation; default and unknown hosts serve every code; removal falls back to default', async () => {
    const orgA = await seedOrg(db.sql);
    const orgB = await seedOrg(db.sql);
    const host = `links-${orgA.slice(0, 8)}.test`;
    const domainId = await seedDomain(db.sql, orgA, host);
    await bus.publish({ kind: 'domain', host });
    const a = await seedLink(db.sql, { orgId: orgA, domainId, url: 'https://a.example/' });
    const b = await seedLink(db.sql, { orgId: orgB, url: 'https://b.example/' });
    await until(async () => (await get(`/${b.shortCode}`, { host })).status === 404, 1_000);

    expect((await get(`/${a.shortCode}`, { host })).headers.location).toBe('https://a.example/');
    expect((await get(`/${b.shortCode}`, { host })).status).toBe(404);
    expect((await get(`/${a.shortCode}`, { host: DEFAULT_HOST })).status).toBe(302);
    expect((await get(`/${b.shortCode}`, { host: DEFAULT_HOST })).status).toBe(302);
    expect((await get(`/${b.shortCode}`, { host: `${host.toUpperCase()}.` })).status).toBe(404); // case and trailing dot
    expect((await get(`/${b.shortCode}`, { host: 'not-registered.test' })).status).toBe(302);

    await db.sql`update domains set active = false, removed_at = now() where id = ${domainId}`;
    await bus.publish({ kind: 'domain', host });
    await until(async () => (await get(`/${b.shortCode}`, { host })).status === 302, 1_000);
    expect((await get(`/${a.shortCode}`, { host: DEFAULT_HOST })).headers.location).toBe('https://a.example/');
  });
});

describe('invalidation', () => {
  it('serves from cache until a link invalidation, then the new value within 1 s', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://old.example/' });
    expect((await get(`/${shortCode}`)).headers.location).toBe('https://old.example/');
    await db.sql`update links set url = 'https://new.example/' where short_code = ${shortCode}`;
    // Cached: without an invalidation the old value is still served.
    expect((await get(`/${shortCode}`)).headers.location).toBe('https://old.example/');
    const t0 = Date.now();
    await bus.publish({ kind: 'link', shortCode });
    await until(async () => (await get(`/${shortCode}`)).headers.location === 'https://new.example/', 1_000);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('caches unknown codes and forgets them on invalidation (link created later)', async () => {
    const org = await seedOrg(db.sql);
    const code = `late${Date.now().toString(36)}`;
    expect((await get(`/${code}`)).status).toBe(404);
    await seedLink(db.sql, { orgId: org, shortCode: code, url: 'https://late.example/' });
    expect((await get(`/${code}`)).status).toBe(404); // negative entry still cached
    await bus.publish({ kind: 'link', shortCode: code });
    await until(async () => (await get(`/${code}`)).status === 302, 1_000);
  });

  it('archiving through the bus answers 410 within 1 s', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    expect((await get(`/${shortCode}`)).status).toBe(302);
    await db.sql`update links set is_active = false where short_code = ${shortCode}`;
    await bus.publish({ kind: 'link', shortCode });
    await until(async () => (await get(`/${shortCode}`)).status === 410, 1_000);
  });
});

describe('deep links', () => {
  it('iOS: app page opening deeplinkUrl, falling back to the store URL; desktop: WEB entry; Android: intent URL', async () => {
    const org = await seedOrg(db.sql);
    const ios = await seedApp(db.sql, org, 'IOS', 'https://apps.apple.com/app/id123');
    const android = await seedApp(db.sql, org, 'ANDROID', 'https://play.google.com/store/apps/details?id=com.example.shop');
    const web = await seedApp(db.sql, org, 'WEB', 'https://web.example/app');
    const { shortCode } = await seedLink(db.sql, {
      orgId: org,
      url: 'https://shop.example/item',
      deepLinks: [
        { appRowId: ios.rowId, mobileAppId: ios.mobileAppId, deeplinkUrl: 'shop://item/42', fallbackUrl: null, linkBehaviour: 'app', fallbackEnabled: false },
        {
          appRowId: android.rowId,
          mobileAppId: android.mobileAppId,
          deeplinkUrl: 'shop://item/42',
          fallbackUrl: 'https://m.shop.example/item',
          linkBehaviour: 'app',
          fallbackEnabled: true,
        },
        {
          appRowId: web.rowId,
          mobileAppId: web.mobileAppId,
          deeplinkUrl: null,
          fallbackUrl: 'https://pwa.example/item',
          linkBehaviour: 'app',
          fallbackEnabled: true,
        },
      ],
    });
    const onIphone = await get(`/${shortCode}`, { headers: { ...BROWSER, 'user-agent': IPHONE } });
    expect(onIphone.status).toBe(200);
    expect(onIphone.text).toContain('data-open="shop://item/42"');
    expect(onIphone.text).toContain('data-fallback="https://apps.apple.com/app/id123"');
    expect(onIphone.headers['content-security-policy']).toMatch(/script-src 'sha256-/);

    const onAndroid = await get(`/${shortCode}`, { headers: { ...BROWSER, 'user-agent': ANDROID } });
    expect(onAndroid.status).toBe(200);
    expect(onAndroid.text).toContain(
      `data-open="intent://item/42#Intent;scheme&#61;shop;package&#61;com.example.shop;S.browser_fallback_url&#61;${encodeURIComponent('https://m.shop.example/item')};end"`,
    );
    expect(onAndroid.text).toContain('data-fallback="https://m.shop.example/item"');

    // WEB entry without deeplinkUrl: straight to its fallback.
    const onDesktop = await get(`/${shortCode}`, { headers: BROWSER });
    expect(onDesktop.status).toBe(302);
    expect(onDesktop.headers.location).toBe('https://pwa.example/item');
    expect(sink.hits.map((h) => h.eventType)).toEqual(['CLICK', 'CLICK', 'CLICK']);
  });

  it('store-URL edit applies at the next click; a removed app means a plain redirect', async () => {
    const org = await seedOrg(db.sql);
    const ios = await seedApp(db.sql, org, 'IOS', 'https://apps.apple.com/app/id1');
    const { shortCode } = await seedLink(db.sql, {
      orgId: org,
      url: 'https://plain.example/',
      deepLinks: [{ appRowId: ios.rowId, mobileAppId: ios.mobileAppId, deeplinkUrl: null, fallbackUrl: null, linkBehaviour: 'app', fallbackEnabled: false }],
    });
    const iphone = { headers: { ...BROWSER, 'user-agent': IPHONE } };
    expect((await get(`/${shortCode}`, iphone)).headers.location).toBe('https://apps.apple.com/app/id1');

    await db.sql`update mobile_apps set store_url = 'https://apps.apple.com/app/id2' where mobile_app_id = ${ios.mobileAppId}`;
    await bus.publish({ kind: 'app', mobileAppId: ios.mobileAppId });
    await until(async () => (await get(`/${shortCode}`, iphone)).headers.location === 'https://apps.apple.com/app/id2', 1_000);

    await db.sql`update mobile_apps set active = false where mobile_app_id = ${ios.mobileAppId}`;
    await bus.publish({ kind: 'app', mobileAppId: ios.mobileAppId });
    await until(async () => (await get(`/${shortCode}`, iphone)).headers.location === 'https://plain.example/', 1_000);
  });
});

describe('click quota', () => {
  it('FREE organisation out of clicks → 402 QE002 with details; previews still served and never counted', async () => {
    const org = await seedOrg(db.sql, 'FREE', 3);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    const crawler = { headers: { 'user-agent': 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' } };
    expect((await get(`/${shortCode}`, crawler)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(`/${shortCode}`)).status).toBe(302);
    const paused = await get(`/${shortCode}`, { headers: { accept: 'application/json' } });
    expect(paused.status).toBe(402);
    const body = JSON.parse(paused.text) as { errors: { code: string; message: string; details: Record<string, unknown> }[] };
    const now = new Date();
    const periodEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    expect(body.errors[0]).toEqual({
      code: 'QE002',
      message: 'Click quota exhausted',
      details: { kind: 'click_quota_exhausted', shortCode, currentClicks: 3, clicksLimit: 3, periodEnd, currentPlan: 'FREE', suggestedUpgradeTo: 'PRO' },
    });
    const html = await get(`/${shortCode}`, { headers: BROWSER });
    expect(html.status).toBe(402);
    expect(html.text).toContain('QE002');
    expect((await get(`/${shortCode}`, crawler)).status).toBe(200);
    expect(sink.hits.map((h) => h.eventType)).toEqual(['METADATA_PREVIEW', 'CLICK', 'CLICK', 'CLICK', 'METADATA_PREVIEW']);
    await until(async () => {
      const [row] = await db.sql<{ clicks: string }[]>`select clicks from usage_counters where org_id = ${org}`;
      return row?.clicks === '3';
    }, 3_000);
  });

  it('paid plans keep redirecting past the limit and count overage', async () => {
    const org = await seedOrg(db.sql, 'PRO', 2);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    for (let i = 0; i < 5; i++) expect((await get(`/${shortCode}`)).status).toBe(302);
    await until(async () => {
      const [row] = await db.sql<{ clicks: string }[]>`select clicks from usage_counters where org_id = ${org}`;
      return row?.clicks === '5';
    }, 3_000);
  });

  it('a plan change (org invalidation) lifts the pause', async () => {
    const org = await seedOrg(db.sql, 'FREE', 1);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    expect((await get(`/${shortCode}`)).status).toBe(302);
    expect((await get(`/${shortCode}`)).status).toBe(402);
    await db.sql`update organizations set plan = 'PRO' where id = ${org}`;
    await bus.publish({ kind: 'org', orgId: org });
    await until(async () => (await get(`/${shortCode}`)).status === 302, 1_000);
  });
});

describe('pages', () => {
  it('crawler gets Open Graph tags from the effective preview metadata, escaped, and a METADATA_PREVIEW hit', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, {
      orgId: org,
      url: 'https://dest.example/x?a=1&b=2',
      enableCustomMetadata: true,
      customTitle: '"><script>alert(1)</script>',
      customDescription: "It's <b>bold</b> & new",
      customImageUrl: 'https://img.example/a.png?x="y"',
    });
    const res = await get(`/${shortCode}`, { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' } });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain('<meta property="og:title" content="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">');
    expect(res.text).toContain('<meta property="og:description" content="It&#39;s &lt;b&gt;bold&lt;/b&gt; &amp; new">');
    expect(res.text).toContain('<meta property="og:image" content="https://img.example/a.png?x&#61;&quot;y&quot;">');
    expect(res.text).toContain(`<meta property="og:url" content="https://${DEFAULT_HOST}/${shortCode}">`);
    expect(sink.hits).toHaveLength(1);
    expect(sink.hits[0]!.eventType).toBe('METADATA_PREVIEW');
  });

  it('cloaked link: 200 full-viewport iframe of the destination with UTM; plain redirect once framing is known to be refused', async () => {
    const org = await seedOrg(db.sql);
    const url = `https://frame.example/${Date.now()}`;
    const { shortCode } = await seedLink(db.sql, { orgId: org, url, cloakEnabled: true, utmSource: 'a"b' });
    await db.sql`insert into destination_previews (url, title, frame_refused, fetched_at) values (${url}, ${'Title <i>'}, false, now())`;
    const res = await get(`/${shortCode}`, { headers: BROWSER });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    expect(res.text).toContain(`<iframe src="${url}?utm_source&#61;a%22b"`);
    expect(res.text).toContain('<title>Title &lt;i&gt;</title>');
    expect(sink.hits.map((h) => h.eventType)).toEqual(['CLICK']);

    await db.sql`update destination_previews set frame_refused = true where url = ${url}`;
    await bus.publish({ kind: 'link', shortCode });
    await until(async () => (await get(`/${shortCode}`, { headers: BROWSER })).status === 302, 1_000);
    expect((await get(`/${shortCode}`, { headers: BROWSER })).headers.location).toBe(`${url}?utm_source=a%22b`);
  });
});

describe('QR codes', () => {
  it('SVG and PNG encode the smart link with ?qr=1 (custom domain while active) and record nothing', async () => {
    const org = await seedOrg(db.sql);
    const host = `qr-${org.slice(0, 8)}.test`;
    const domainId = await seedDomain(db.sql, org, host);
    await bus.publish({ kind: 'domain', host });
    const { shortCode } = await seedLink(db.sql, { orgId: org, domainId });
    const custom = await QRCode.toString(`https://${host}/${shortCode}?qr=1`, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    await until(async () => (await get(`/${shortCode}/qr.svg`)).text === custom, 1_000);
    const svg = await get(`/${shortCode}/qr.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.text).toBe(await QRCode.toString(`https://${host}/${shortCode}?qr=1`, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }));
    const png = await get(`/${shortCode}/qr.png`);
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(sink.hits).toHaveLength(0);

    await db.sql`update domains set active = false where id = ${domainId}`;
    await bus.publish({ kind: 'domain', host });
    const expected = await QRCode.toString(`https://${DEFAULT_HOST}/${shortCode}?qr=1`, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    await until(async () => (await get(`/${shortCode}/qr.svg`)).text === expected, 1_000);
    expect((await get('/unknownqr1/qr.svg')).status).toBe(404);
  });
});

describe('header bounds', () => {
  const TOO_LARGE = { errors: [{ code: 'VE001', message: 'Request header fields too large' }] };

  it('a header the redirector reads over 8 KiB is answered 431 with the JSON envelope, and nothing is recorded', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    const big = 'x'.repeat(8 * 1024 + 1);
    for (const [name, headers, host] of [
      ['user-agent', { 'user-agent': big }, DEFAULT_HOST],
      ['referer', { referer: `https://r.example/${big}` }, DEFAULT_HOST],
      ['accept', { accept: `text/html,${big}` }, DEFAULT_HOST],
      ['sec-fetch-dest', { 'sec-fetch-dest': big }, DEFAULT_HOST],
      ['host', {}, `${big}.test`],
    ] as const) {
      for (const path of [`/${shortCode}`, `/${shortCode}/qr.svg`, '/not/a/code']) {
        const res = await get(path, { host, headers });
        expect(res.status, `${name} ${path}`).toBe(431);
        expect(res.headers['content-type']).toBe('application/json');
        expect(JSON.parse(res.text)).toEqual(TOO_LARGE);
      }
    }
    const head = await get(`/${shortCode}`, { method: 'HEAD', headers: { 'user-agent': big } });
    expect(head.status).toBe(431);
    expect(sink.hits).toHaveLength(0);
    // 8 KiB exactly is still read.
    expect((await get(`/${shortCode}`, { headers: { 'user-agent': big.slice(1) } })).status).toBe(302);
  });

  it('1,000 requests with 100 KB of distinct Host or User-Agent each read a whole 431', async () => {
    const { failures, bodies } = await headerFlood(port, { tries: 1_000, concurrency: 16, size: 100 * 1024, expected: 431 });
    expect(failures.map((f) => `${f.status} ${f.error}`)).toEqual([]);
    expect([...bodies].map((b) => JSON.parse(b))).toEqual([TOO_LARGE]);
    expect(sink.hits).toHaveLength(0);
  });

  it('a 431 whose request announced a body is read while the body still arrives; bounded by LINGER_BYTES and LINGER_MS', async () => {
    const announced = (i: number, length: number): string => bigHeaderRequest(i, 20 * 1024).replace('\r\n\r\n', `\r\nContent-Length: ${length}\r\n\r\n`);
    const unread: string[] = [];
    for (let i = 0; i < 50; i++) {
      // 10 MB in 64 KiB pieces: the answer comes once LINGER_BYTES were discarded, long before the end.
      const a = await rawRequest(port, announced(i, 10_000_000), Buffer.alloc(64 * 1024, 'b'), { repeatEveryMs: 2, totalBytes: 10_000_000 });
      if (a.status !== 431 || !a.complete) unread.push(`try ${i}: ${a.status} ${a.error}`);
    }
    expect(unread).toEqual([]);
    // The body is read before the answer closes the connection: over a real network the rest of
    // it is still in flight when the answer leaves, and arriving at a closed socket it would be
    // answered with a reset that makes the client drop the 431 it had not read yet.
    const half = Buffer.alloc(32 * 1024, 'b');
    const exchange = await new Promise<{ beforeRest: number; answer: string; error: string | null }>((resolve) => {
      const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let text = '';
      let error: string | null = null;
      let beforeRest = -1;
      s.setEncoding('latin1');
      s.on('data', (d: string) => {
        text += d;
      });
      s.on('error', (e: NodeJS.ErrnoException) => {
        error = e.code ?? e.message;
      });
      s.on('end', () => s.end());
      s.on('close', () => resolve({ beforeRest, answer: text, error }));
      s.write(announced(1, 2 * half.length));
      s.write(half);
      setTimeout(() => {
        beforeRest = text.length;
        s.write(half);
      }, 300);
    });
    expect(exchange.beforeRest).toBe(0);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(exchange.answer.endsWith(JSON.stringify(TOO_LARGE))).toBe(true);
    expect(exchange.error).toBeNull();
    // A body announced and never sent: answered after LINGER_MS, not held open.
    const started = Date.now();
    const silent = await rawRequest(port, announced(0, 1_000));
    expect(silent.status).toBe(431);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(Date.now() - started).toBeLessThan(LINGER_MS + 1_000);
    expect(sink.hits).toHaveLength(0);
  });

  it('User-Agent is cut to 512 characters and Referer to 2,048 before they are recorded', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    const ua = `Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) ${'u'.repeat(7_000)}`;
    const referer = `https://ref.example/${'r'.repeat(5_000)}`;
    const res = await get(`/${shortCode}`, { headers: { ...BROWSER, 'user-agent': ua, referer } });
    expect(res.status).toBe(302);
    expect(sink.hits).toHaveLength(1);
    expect(sink.hits[0]!.userAgent).toBe(ua.slice(0, 512));
    expect(sink.hits[0]!.referrer).toBe(referer.slice(0, 2_048));
  });

  it('an invalid or over-long Host reads as no host: served like the default host', async () => {
    const org = await seedOrg(db.sql);
    const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://nohost.example/' });
    const longLabels = `${`${'a'.repeat(63)}.`.repeat(4)}test`; // 260 characters of valid labels
    for (const host of ['bad_host.test', longLabels, 'go.b.test:notaport', '[::1']) {
      const res = await get(`/${shortCode}`, { host });
      expect(res.status, host).toBe(302);
      expect(res.headers.location).toBe('https://nohost.example/');
    }
  });
});

describe('custom-domain isolation', () => {
  it('Host is normalised once: Go.B.test:443, go.b.test. and GO.B.TEST all mean the custom domain (only its links)', async () => {
    const orgA = await seedOrg(db.sql);
    const orgB = await seedOrg(db.sql);
    const host = `go.b-${orgB.slice(0, 8)}.test`;
    await seedDomain(db.sql, orgB, host);
    await bus.publish({ kind: 'domain', host });
    const a = await seedLink(db.sql, { orgId: orgA, url: 'https://a.example/' });
    const b = await seedLink(db.sql, { orgId: orgB, url: 'https://b.example/' });
    await until(async () => (await get(`/${a.shortCode}`, { host })).status === 404, 1_000);
    const variants = [`${host.replace('go.b', 'Go.B')}:443`, `${host}.`, host.toUpperCase(), `${host}:8080`, ` ${host} `];
    for (const v of variants) {
      expect((await get(`/${a.shortCode}`, { host: v })).status, v).toBe(404);
      expect((await get(`/${a.shortCode}/qr.svg`, { host: v })).status, v).toBe(404);
      const res = await get(`/${b.shortCode}`, { host: v });
      expect(res.status, v).toBe(302);
      expect(res.headers.location).toBe('https://b.example/');
    }
  });
});

describe('custom-domain directory', () => {
  let counted: RedirectorServer;
  let relay: OutboxRelay;
  let domainQueries = 0;

  beforeAll(async () => {
    // Every query the redirector sends through this handle is seen here: those naming the domains table are counted.
    const countingSql = new Proxy(db.sql, {
      apply(target, thisArg, args: unknown[]) {
        const first = args[0];
        if (Array.isArray(first) && first.join('?').includes(' domains ')) domainQueries++;
        return Reflect.apply(target, thisArg, args);
      },
    });
    counted = await createRedirectorServer({
      sql: countingSql,
      bus,
      ...memoryRedirectorPorts(db.sql),
      hitSink: new MemoryHitSink(),
      config: {
        REDIRECT_HOST: '127.0.0.1',
        REDIRECT_PORT: 0,
        LINK_CACHE_ENTRIES: 1_000,
        TRUST_PROXY: { kind: 'hops', hops: 0 },
        DEFAULT_SHORT_DOMAIN: DEFAULT_HOST,
      },
    });
    relay = new OutboxRelay({ sql: db.sql, bus, pollIntervalMs: 200 });
    await relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await counted?.close();
  });

  it('1,000 requests with random unknown Hosts cost no domain query; a domain added through the admin path applies within 1 s', async () => {
    const atStart = domainQueries;
    const orgA = await seedOrg(db.sql);
    const orgB = await seedOrg(db.sql);
    const a = await seedLink(db.sql, { orgId: orgA, url: 'https://a.example/' });
    const b = await seedLink(db.sql, { orgId: orgB, url: 'https://b.example/' });
    await send(counted.port, `/${a.shortCode}`, { host: DEFAULT_HOST }); // the link is cached
    domainQueries = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 1_000; i += 20) {
      const batch = Array.from({ length: 20 }, (_, j) =>
        send(counted.port, `/${a.shortCode}`, { host: `r${i + j}-${Math.random().toString(36).slice(2)}.test` }),
      );
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 302)).toHaveLength(1_000);
    expect(domainQueries).toBe(0);
    expect(atStart).toBeGreaterThan(0); // the directory's load at start went through the counter

    const host = `added-${orgB.slice(0, 8)}.test`;
    expect((await send(counted.port, `/${a.shortCode}`, { host })).status).toBe(302);
    const t0 = Date.now();
    await addDomain(db.sql, await getOrganization(db.sql, orgB), host, false);
    await until(async () => (await send(counted.port, `/${a.shortCode}`, { host })).status === 404, 1_000);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect((await send(counted.port, `/${b.shortCode}`, { host: `${host.toUpperCase()}:443` })).status).toBe(302);
    expect(domainQueries).toBe(1); // that host re-read after its invalidation, nothing else
  });
});

describe('trusted proxies', () => {
  const proxied: { server: RedirectorServer; sink: MemoryHitSink; label: string }[] = [];

  beforeAll(async () => {
    for (const [label, trust] of [
      ['TRUST_PROXY=1', { kind: 'hops', hops: 1 }],
      ['TRUST_PROXY=127.0.0.0/8', { kind: 'cidrs', cidrs: ['127.0.0.0/8'] }],
    ] as const) {
      const hits = new MemoryHitSink();
      const s = await createRedirectorServer({
        sql: db.sql,
        bus,
        ...memoryRedirectorPorts(db.sql),
        hitSink: hits,
        config: { REDIRECT_HOST: '127.0.0.1', REDIRECT_PORT: 0, LINK_CACHE_ENTRIES: 1_000, TRUST_PROXY: trust, DEFAULT_SHORT_DOMAIN: DEFAULT_HOST },
      });
      proxied.push({ server: s, sink: hits, label });
    }
  });

  afterAll(async () => {
    for (const p of proxied) await p.server.close();
  });

  it('the recorded client is the rightmost untrusted X-Forwarded-For entry, never a spoofed leftmost one', async () => {
    const org = await seedOrg(db.sql, 'ENTERPRISE');
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    for (const { server: s, sink: hits, label } of proxied) {
      // The client wrote "X-Forwarded-For: 6.6.6.6"; the proxy on 127.0.0.1 appended the address it saw.
      expect((await send(s.port, `/${shortCode}`, { host: DEFAULT_HOST, headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' } })).status).toBe(302);
      expect((await send(s.port, `/${shortCode}`, { host: DEFAULT_HOST, headers: { 'x-forwarded-for': '203.0.113.4' } })).status).toBe(302);
      expect((await send(s.port, `/${shortCode}`, { host: DEFAULT_HOST })).status).toBe(302);
      expect(
        hits.hits.map((h) => h.ip),
        label,
      ).toEqual(['198.51.100.7', '203.0.113.4', '127.0.0.1']);
      // X-Forwarded-For is a header it reads: bounded like the others.
      const long = Array.from({ length: 1_000 }, (_, i) => `10.0.${i % 250}.1`).join(', ');
      expect((await send(s.port, `/${shortCode}`, { host: DEFAULT_HOST, headers: { 'x-forwarded-for': long } })).status, label).toBe(431);
      expect(hits.hits).toHaveLength(3);
    }
    // Without TRUST_PROXY the peer is the client whatever X-Forwarded-For says.
    await get(`/${shortCode}`, { headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' } });
    expect(sink.hits.map((h) => h.ip)).toEqual(['127.0.0.1']);
  });
});
