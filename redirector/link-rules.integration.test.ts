// Invariant: link rules end to end on real redirectors (links saved through saveLink into a
// migrated Postgres, answers read over HTTP): resolve agrees with a real visit for 200 random
// visitor/rule combinations; expiry by time and by clicks records nothing and uses no quota; two
// redirectors sharing one click counter (the machine's Redis when it runs, else one memory counter)
// serve exactly maxClicks redirects to 2,000 concurrent visits, a crawler counts for nothing, and
// three concurrent expiry sweeps then queue exactly one link.expired;
// the password form's POST (wrong, right, too many, too large) and the cookie (scope, another
// link's, malformed) answer clearly, never a 500 or a bypass.
import { Agent } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GeoLocator } from '../shared/analytics/enrichment/geo-locator.ts';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { saveLink, type Actor, type LinkServiceDeps } from '../shared/links/save-link.ts';
import type { RuleSpec } from '../shared/links/link-rules.ts';
import { createOrganization } from '../shared/orgs/org-repository.ts';
import { LinkExpirySweep } from '../shared/links/link-expiry.ts';
import type { LinkClickStore } from '../shared/quotas/link-click-counter.ts';
import { MemoryLinkClickCounter } from '../shared/quotas/memory-link-click-counter.ts';
import { RedisLinkClickCounter } from '../shared/quotas/redis-link-click-counter.ts';
import { MemoryRateLimiter } from '../shared/limits/memory-rate-limiter.ts';
import { MemoryClickCounterStore } from '../shared/quotas/memory-click-counter-store.ts';
import { PostgresUsageStore } from '../shared/quotas/usage-store.ts';
import { addEndpoint } from '../shared/webhooks/webhook-repository.ts';
import { resolveLink, type ResolveResponse } from '../shared/redirects/resolve-link.ts';
import { send, type TestResponse } from '../test/support/http-request.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from '../test/support/servers.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';

const HOST = 'sho.rt';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const UAS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'curl/8.5.0',
  'facebookexternalhit/1.1',
];
const LANGUAGES = ['', 'de-DE,de;q=0.9,en;q=0.8', 'en-US,en;q=0.9', 'fr;q=0.5, de;q=0.7', 'xx;q=abc', ';;;', 'ja'];
const IPS = ['8.8.8.8', '81.169.145.1', '212.58.244.1', '80.67.169.12', '192.0.2.1'];
const QUERIES = ['', 'ref=mail', 'ref=web&x=1', 'campaign', 'a=1'];

let db: TestDatabase;
let deps: LinkServiceDeps;
let actor: Actor;
const redisUrl = inject('realRedisUrl');
const prefix = redisTestPrefix();
let redis: Redis | null = null;
let counter: LinkClickStore;
const buses: MemoryInvalidationBus[] = [];
const servers: RedirectorServer[] = [];
const sinks: MemoryHitSink[] = [];

async function redirector(sharedCounter: LinkClickStore): Promise<{ server: RedirectorServer; sink: MemoryHitSink; bus: MemoryInvalidationBus }> {
  const bus = new MemoryInvalidationBus();
  const sink = new MemoryHitSink();
  const server = await createRedirectorServer({
    sql: db.sql,
    bus,
    cacheTier: null,
    clickCounter: new MemoryClickCounterStore(),
    linkClicks: sharedCounter,
    rateLimiter: new MemoryRateLimiter(),
    usageStore: new PostgresUsageStore(db.sql),
    hitSink: sink,
    usageFlushIntervalMs: 100,
    config: {
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: 0,
      LINK_CACHE_ENTRIES: 10_000,
      // The test's X-Forwarded-For stands for the visitor's address (the country rules).
      TRUST_PROXY: { kind: 'hops', hops: 1 },
      DEFAULT_SHORT_DOMAIN: HOST,
    },
  });
  buses.push(bus);
  servers.push(server);
  sinks.push(sink);
  return { server, sink, bus };
}

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  if (redisUrl) redis = new Redis(redisUrl);
  counter = redis ? new RedisLinkClickCounter(redis, prefix) : new MemoryLinkClickCounter();
  deps = { sql: db.sql, shortLinkBase: `http://${HOST}`, now: Date.now, linkClicks: counter };
  actor = { org: await createOrganization(db.sql, { name: 'rules-it', plan: 'BUSINESS' }), attribution: 'api-key:test', via: 'EXTERNAL' };
});

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const b of buses) await b.close();
  if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
  redis?.disconnect();
  await db?.drop();
});

/** A deterministic pseudo-random sequence (the failing combination can be replayed). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;

function randomRules(r: () => number, countries: string[], n: number): RuleSpec[] {
  const day = 86_400_000;
  const conditions: (() => RuleSpec['conditions'][number])[] = [
    () => ({ type: 'device', value: pick(r, ['IOS', 'ANDROID', 'MOBILE', 'TABLET', 'DESKTOP']) }),
    () => ({ type: 'countryCode', value: pick(r, countries) }),
    () => ({ type: 'language', value: pick(r, ['de', 'en', 'fr', 'ja']) }),
    () => ({ type: 'queryParam', value: pick(r, ['ref', 'ref=mail', 'campaign', 'x=1']) }),
    () => ({ type: 'after', value: new Date(Date.now() + (r() < 0.5 ? -day : day)).toISOString() }),
    () => ({ type: 'before', value: new Date(Date.now() + (r() < 0.5 ? -day : day)).toISOString() }),
  ];
  return Array.from({ length: n }, (_, i) => ({
    conditions: Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, conditions)()),
    url: `https://rule${i}.example/`,
  }));
}

/** What a real visit's HTTP answer says, in resolve's terms. */
function visitKind(res: TestResponse): { kind: string; location?: string } {
  if (res.status === 302) return { kind: 'redirect', location: res.headers.location };
  if (res.status === 410) return { kind: 'expired' };
  if (res.status === 401) return { kind: 'password_required' };
  if (res.status === 200 && res.text.includes('<iframe src="')) return { kind: 'cloak', location: /<iframe src="([^"]+)"/.exec(res.text)?.[1] };
  if (res.status === 200 && res.text.includes('<form method="post"')) return { kind: 'password_required' };
  if (res.status === 200 && res.text.includes('og:type')) return { kind: 'preview' };
  return { kind: `status ${res.status}` };
}

function resolvedKind(r: ResolveResponse): { kind: string; location?: string } {
  // Over HTTP a rule and an expired link with expiredUrl are 302s: their Locations tell them apart.
  const kind = r.kind === 'rule' || (r.kind === 'expired' && r.location !== undefined) ? 'redirect' : r.kind;
  return r.location === undefined || kind === 'preview' || kind === 'password_required' ? { kind } : { kind, location: r.location };
}

describe('resolve against a real visit', () => {
  it('agrees for 200 random visitor/rule combinations (rules, cloaking, expiry, password)', async () => {
    const { server } = await redirector(counter);
    const geo = new GeoLocator();
    const countries = [...new Set((await geo.lookupAll(IPS)).map((g) => g.countryCode ?? 'ZZ'))];
    const r = random(20261124);
    let compared = 0;
    const kinds = new Set<string>();
    for (let l = 0; l < 40; l++) {
      const expired = r() < 0.1;
      const { view } = await saveLink(deps, actor, {
        url: `https://dest${l}.example/`,
        rules: randomRules(r, countries, Math.floor(r() * 6)),
        cloakEnabled: r() < 0.2,
        expiresAt: expired ? '2020-01-01T00:00:00Z' : null,
        expiredUrl: expired && r() < 0.5 ? 'https://expired.example/' : null,
        password: r() < 0.1 ? 'a good password' : null,
        utmSource: r() < 0.3 ? 'rt' : null,
      });
      for (let v = 0; v < 5; v++) {
        const visitor = { userAgent: pick(r, UAS), acceptLanguage: pick(r, LANGUAGES), query: pick(r, QUERIES), ip: pick(r, IPS) };
        const country = (await geo.lookup(visitor.ip)).countryCode;
        const resolved = await resolveLink(deps, actor.org, {
          shortCode: view.shortCode,
          visitor: { userAgent: visitor.userAgent, acceptLanguage: visitor.acceptLanguage, query: visitor.query, countryCode: country },
        });
        const res = await send(server.port, `/${view.shortCode}${visitor.query === '' ? '' : `?${visitor.query}`}`, {
          host: HOST,
          headers: { 'user-agent': visitor.userAgent, 'accept-language': visitor.acceptLanguage, accept: BROWSER, 'x-forwarded-for': visitor.ip },
        });
        expect({ link: l, visitor, seen: visitKind(res) }).toEqual({ link: l, visitor, seen: resolvedKind(resolved) });
        kinds.add(resolved.kind);
        compared++;
      }
    }
    expect(compared).toBe(200);
    // The combinations reached every kind they can.
    expect([...kinds].sort()).toEqual(['cloak', 'expired', 'password_required', 'preview', 'redirect', 'rule']);
  });
});

describe('expiry', () => {
  it('by time and by clicks, with and without expiredUrl: nothing recorded, no quota used; effective within 1 s of a save', async () => {
    const { server, sink, bus } = await redirector(counter);
    const usage = async () =>
      Number((await db.sql<{ clicks: string }[]>`select coalesce(sum(clicks), 0) as clicks from usage_counters where org_id = ${actor.org.id}`)[0]?.clicks);
    const timed = (await saveLink(deps, actor, { url: 'https://live.example/', expiresAt: '2020-01-01T00:00:00Z' })).view.shortCode;
    const withUrl = (await saveLink(deps, actor, { url: 'https://live.example/', expiresAt: '2020-01-01T00:00:00Z', expiredUrl: 'https://over.example/x' }))
      .view.shortCode;
    const clicks = (await saveLink(deps, actor, { url: 'https://live.example/', maxClicks: 2 })).view.shortCode;
    await new Promise((res) => setTimeout(res, 300));
    sink.clear();
    const before = await usage();

    const gone = await send(server.port, `/${timed}`, { host: HOST, headers: { accept: 'application/json' } });
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.text)).toEqual({ errors: [{ code: 'EN003', message: 'Link has expired' }] });
    const moved = await send(server.port, `/${withUrl}`, { host: HOST });
    expect([moved.status, moved.headers.location]).toEqual([302, 'https://over.example/x']);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(server.port, `/${clicks}`, { host: HOST })).status);
    expect(statuses).toEqual([302, 302, 410, 410]);
    expect(sink.hits.map((h) => h.link.shortCode)).toEqual([clicks, clicks]);
    await new Promise((res) => setTimeout(res, 300));
    expect((await usage()) - before).toBe(2);

    // A save that expires a live link takes effect at the next visit once its invalidation arrives.
    const live = (await saveLink(deps, actor, { url: 'https://live.example/' })).view.shortCode;
    expect((await send(server.port, `/${live}`, { host: HOST })).status).toBe(302);
    await saveLink(deps, actor, { url: 'https://live.example/', shortCode: live, expiresAt: new Date(Date.now() - 1000).toISOString() });
    const saved = Date.now();
    await bus.publish({ kind: 'link', shortCode: live });
    expect((await send(server.port, `/${live}`, { host: HOST })).status).toBe(410);
    expect(Date.now() - saved).toBeLessThan(1000);
  });
});

describe('maxClicks under concurrency', () => {
  it('two redirectors sharing the counter serve exactly 500 of 2,000 concurrent visits; crawlers count for nothing', async () => {
    const a = await redirector(counter);
    const b = await redirector(counter);
    await addEndpoint(db.sql, { allowPrivate: true, secretsKey: undefined }, actor.org.id, { url: 'http://127.0.0.1:9/hook', eventTypes: ['link.expired'] });
    const { view } = await saveLink(deps, actor, { url: 'https://limited.example/', maxClicks: 500 });
    const agents = [new Agent({ keepAlive: true, maxSockets: 200 }), new Agent({ keepAlive: true, maxSockets: 200 })];
    const ports = [a.server.port, b.server.port];
    a.sink.clear();
    b.sink.clear();
    // Crawlers first: previews, never counted.
    for (let i = 0; i < 20; i++) {
      const res = await send(ports[i % 2] as number, `/${view.shortCode}`, { host: HOST, headers: { 'user-agent': UAS[6] as string } });
      expect(res.status).toBe(200);
    }
    const answers = await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        send(ports[i % 2] as number, `/${view.shortCode}`, { host: HOST, agent: agents[i % 2], headers: { accept: 'application/json' } }),
      ),
    );
    for (const agent of agents) agent.destroy();
    const byStatus = new Map<number, number>();
    for (const res of answers) byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
    expect(Object.fromEntries(byStatus)).toEqual({ 302: 500, 410: 1500 });
    const clicks = [...a.sink.hits, ...b.sink.hits].filter((h) => h.eventType === 'CLICK');
    expect(clicks).toHaveLength(500);
    expect(a.sink.hits.filter((h) => h.eventType === 'CLICK').length).toBeGreaterThan(0);
    expect(b.sink.hits.filter((h) => h.eventType === 'CLICK').length).toBeGreaterThan(0);
    expect(await counter.count(await linkId(view.shortCode))).toBe(500);
    expect(await resolveLink(deps, actor.org, { shortCode: view.shortCode })).toEqual({ kind: 'expired' });
    // The take that reached 500 (and the refused ones) left the link in the counter's log.
    const sweeps = Array.from({ length: 3 }, () => new LinkExpirySweep({ sql: db.sql, shortLinkBase: `http://${HOST}`, linkClicks: counter }));
    await Promise.all(sweeps.map((s) => s.sweep()));
    const sent = await db.sql<{ body: string }[]>`
      select body from webhook_messages where type = 'link.expired' and (body::jsonb -> 'data' ->> 'shortCode') = ${view.shortCode}`;
    expect(sent.map((m) => (JSON.parse(m.body) as { data: unknown }).data)).toEqual([view]);
  });
});

describe('bots and maxClicks', () => {
  it('a maxClicks 1 link survives a mail scanner, a link-preview crawler and curl, then serves one person; all four recorded', async () => {
    const a = await redirector(counter);
    const { view } = await saveLink(deps, actor, { url: 'https://once.example/', maxClicks: 1 });
    a.sink.clear();
    const bots = [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) BingPreview/1.0b',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'curl/8.5.0',
    ];
    const statuses: number[] = [];
    for (const ua of bots) statuses.push((await send(a.server.port, `/${view.shortCode}`, { host: HOST, headers: { 'user-agent': ua } })).status);
    expect(statuses).toEqual([302, 200, 302]);
    expect(await counter.count(await linkId(view.shortCode))).toBe(0);
    const person = await send(a.server.port, `/${view.shortCode}`, { host: HOST, headers: { 'user-agent': UAS[0] as string } });
    expect([person.status, person.headers.location]).toEqual([302, 'https://once.example/']);
    expect((await send(a.server.port, `/${view.shortCode}`, { host: HOST, headers: { 'user-agent': UAS[4] as string } })).status).toBe(410);
    expect(a.sink.hits.map((h) => [h.eventType, h.userAgent])).toEqual([
      ['CLICK', bots[0]],
      ['METADATA_PREVIEW', bots[1]],
      ['CLICK', bots[2]],
      ['CLICK', UAS[0]],
    ]);
  });
});

async function linkId(shortCode: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`select id from links where short_code = ${shortCode}`;
  return row?.id ?? '';
}

describe('password', () => {
  const form = (password: string) => `password=${encodeURIComponent(password)}`;
  const post = (port: number, path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    send(port, path, { host: HOST, method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER, ...headers } });

  it('form, wrong, right (a Secure cookie for the link path, 24 h: the short links are https), and the cookie lets the visit through', async () => {
    const { server, sink } = await redirector(counter);
    const { view } = await saveLink(deps, actor, { url: 'https://secret.example/', password: 'open sesame' });
    const path = `/${view.shortCode}`;
    sink.clear();
    const page = await send(server.port, path, { host: HOST, headers: { accept: BROWSER } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post"');
    expect(page.text).not.toContain('secret.example');
    expect((await send(server.port, path, { host: HOST, headers: { accept: 'application/json' } })).status).toBe(401);

    const wrong = await post(server.port, path, form('nope'), { 'x-forwarded-for': '198.51.100.1' });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('Wrong password');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const right = await post(server.port, `${path}?ref=x`, form('open sesame'), { 'x-forwarded-for': '198.51.100.1' });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(`${path}?ref=x`);
    const cookie = right.headers['set-cookie'] ?? '';
    expect(cookie).toMatch(new RegExp(`^sl_pw=[^;]+; Path=${path}; Max-Age=86400; HttpOnly; SameSite=Lax; Secure$`));
    const value = cookie.split(';')[0] as string;
    const through = await send(server.port, path, { host: HOST, headers: { accept: BROWSER, cookie: `other=1; ${value}` } });
    expect([through.status, through.headers.location]).toEqual([302, 'https://secret.example/']);
    expect(sink.hits.map((h) => h.eventType)).toEqual(['CLICK']);

    // Another link's cookie, a malformed one, a forged one: the form again, never the destination.
    const { view: other } = await saveLink(deps, actor, { url: 'https://other.example/', password: 'open sesame' });
    for (const bad of [value, 'sl_pw=garbage', 'sl_pw=..', `sl_pw=${'x'.repeat(5000)}`, `${value.slice(0, -4)}AAAA`, 'sl_pw=%00%ff']) {
      const res = await send(server.port, `/${other.shortCode}`, { host: HOST, headers: { accept: BROWSER, cookie: bad } });
      expect([bad.slice(0, 20), res.status, res.text.includes('<form method="post"')]).toEqual([bad.slice(0, 20), 200, true]);
    }
    // A new password ends the old cookie.
    await saveLink(deps, actor, { url: 'https://secret.example/', shortCode: view.shortCode, password: 'another one' });
    await new Promise((res) => setTimeout(res, 50));
    for (const b of buses) await b.publish({ kind: 'link', shortCode: view.shortCode });
    const after = await send(server.port, path, { host: HOST, headers: { accept: BROWSER, cookie: value } });
    expect(after.status).toBe(200);
  });

  it('at most 10 tries a minute per address and link (429 SML005 link_password), an oversized body 413, JSON clients 401', async () => {
    const { server } = await redirector(counter);
    const { view } = await saveLink(deps, actor, { url: 'https://secret.example/', password: 'open sesame' });
    const path = `/${view.shortCode}`;
    const tries = [];
    for (let i = 0; i < 11; i++) tries.push((await post(server.port, path, form(`guess ${i}`), { 'x-forwarded-for': '198.51.100.7' })).status);
    expect(tries).toEqual([...Array(10).fill(200), 429]);
    const limited = await post(server.port, path, form('open sesame'), { 'x-forwarded-for': '198.51.100.7', accept: 'application/json' });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text).errors[0]).toMatchObject({ code: 'SML005', details: { scope: 'link_password', limitPerMin: 10 } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not limited.
    expect((await post(server.port, path, form('open sesame'), { 'x-forwarded-for': '198.51.100.8' })).status).toBe(303);

    const big = await post(server.port, path, Buffer.alloc(64 * 1024, 'a'), { 'x-forwarded-for': '198.51.100.9', accept: 'application/json' });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.text).errors[0].code).toBe('VE001');
    // Unannounced (chunked), it is read on and discarded, then answered: a 413, not a reset.
    const chunked = await post(server.port, path, Buffer.alloc(64 * 1024, 'a'), {
      'x-forwarded-for': '198.51.100.9',
      accept: 'application/json',
      'transfer-encoding': 'chunked',
    });
    expect(chunked.status).toBe(413);
    const json = await post(server.port, path, form('nope'), { 'x-forwarded-for': '198.51.100.10', accept: 'application/json' });
    expect(json.status).toBe(401);
    expect(JSON.parse(json.text)).toEqual({ errors: [{ code: 'SML011', message: 'Password required' }] });
    const empty = await post(server.port, path, '', { 'x-forwarded-for': '198.51.100.10' });
    expect(empty.status).toBe(200);
    // A link without a password: the POST is sent to its path.
    const { view: open } = await saveLink(deps, actor, { url: 'https://open.example/' });
    expect((await post(server.port, `/${open.shortCode}`, form('x'))).status).toBe(303);
    expect((await post(server.port, '/unknown-code-1', form('x'), { accept: 'application/json' })).status).toBe(404);
  });

  it('Accept-Language and query garbage get a clear answer', async () => {
    const { server } = await redirector(counter);
    const { view } = await saveLink(deps, actor, {
      url: 'https://x.example/',
      rules: [{ conditions: [{ type: 'language', value: 'de' }], url: 'https://de.example/' }],
    });
    for (const garbage of ['\u00ff\u00fe', ';q=;q=;q=', 'de;q=1.0000000001', 'x'.repeat(7000), ',,,,,']) {
      const res = await send(server.port, `/${view.shortCode}?%zz&=&&`, { host: HOST, headers: { 'accept-language': garbage } });
      expect(res.status).toBe(302);
    }
  });
});
