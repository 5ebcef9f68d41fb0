// Invariant: the redirect use case answers without a database or a server: over an in-memory
// entity source, a cached request is answered synchronously, a cold one once its entities are
// loaded (one source call per kind for all of a link's misses, one load shared by concurrent
// requests), a FREE organisation's clicks are admitted against the counter and each admitted
// click is counted once, and a request whose client hung up while it waited records nothing.
import { botCategoryOf } from '../shared/redirects/crawler-detection.ts';
import { PasswordCookies } from '../shared/links/password-cookie.ts';
import { LinkClickAdmission } from '../shared/quotas/link-click-counter.ts';
import { MemoryLinkClickCounter } from '../shared/quotas/memory-link-click-counter.ts';
import { describe, expect, it } from 'vitest';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { billingPeriod } from '../shared/quotas/billing-period.ts';
import { ClickQuota } from '../shared/quotas/click-quota.ts';
import { MemoryClickCounterStore } from '../shared/quotas/memory-click-counter-store.ts';
import type { UsageDelta, UsageStore, UsageTotal } from '../shared/quotas/usage-store.ts';
import { MemoryEntitySource } from '../test/support/memory-entity-source.ts';
import { deepLinkOf, linkOf, mobileAppOf, organizationOf } from '../test/support/model-fixtures.ts';
import type { Decision, HttpAnswer } from '../shared/redirects/decide-redirect.ts';
import { RedirectorMetrics } from './metrics.ts';
import { RedirectResolver } from './redirect-resolver.ts';
import { RedirectService } from './redirect-service.ts';
import type { RequestFacts } from '../shared/redirects/request-facts.ts';

/** usage_counters as a map: the quota's durable count. */
class CountingUsage implements UsageStore {
  readonly clicks = new Map<string, number>();
  async add(deltas: readonly UsageDelta[]): Promise<UsageTotal[]> {
    return deltas.map((d) => {
      const key = `${d.orgId}|${d.periodStart}`;
      const clicks = (this.clicks.get(key) ?? 0) + d.clicks;
      this.clicks.set(key, clicks);
      return { orgId: d.orgId, periodStart: d.periodStart, clicks };
    });
  }
  async read(orgId: string, periodStart: string): Promise<number> {
    return this.clicks.get(`${orgId}|${periodStart}`) ?? 0;
  }
}

function harness(countries: (string | null)[] = []) {
  const entities = new MemoryEntitySource();
  const metrics = new RedirectorMetrics();
  const errors: unknown[] = [];
  const onError = (err: unknown) => errors.push(err);
  const resolver = new RedirectResolver({
    entities,
    cacheTier: null,
    linkCacheEntries: 1_000,
    linkCacheMaxBytes: 1024 * 1024,
    shortLinkBase: 'https://sho.rt',
    hits: (kind) => metrics.cacheCounters(kind),
    onError,
  });
  const usage = new CountingUsage();
  const quota = new ClickQuota({ store: new MemoryClickCounterStore(), usage, flushIntervalMs: 60_000 });
  const sink = new MemoryHitSink();
  const service = new RedirectService({
    resolver,
    quota,
    hitSink: sink,
    metrics,
    onError,
    linkClicks: new LinkClickAdmission(new MemoryLinkClickCounter()),
    passwordCookies: new PasswordCookies('test-secret'),
    countryOf: (ip) => {
      countries.push(ip);
      return ip === '192.0.2.1' ? 'DE' : null;
    },
  });
  return { entities, service, quota, usage, sink, errors };
}

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
/** Bots of three kinds: a mail scanner, a link-preview crawler, a command-line client. */
const BOTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) BingPreview/1.0b',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'curl/8.5.0',
];

const facts = (over: Partial<RequestFacts> = {}): RequestFacts & { aborted: boolean } => ({
  method: 'GET',
  host: 'sho.rt',
  qr: false,
  accept: '*/*',
  userAgent: FIREFOX,
  referrer: null,
  secFetchDest: '',
  secFetchMode: '',
  acceptLanguage: '',
  doNotTrack: false,
  query: '',
  ip: '192.0.2.1',
  aborted: false,
  bot: botCategoryOf(over.userAgent ?? FIREFOX),
  ...over,
});

const visit = (shortCode: string) => ({ kind: 'visit' as const, shortCode });
const httpAnswer = (d: Decision | null): HttpAnswer => {
  if (d === null || d.kind !== 'answer') throw new Error(`not an HTTP answer: ${JSON.stringify(d)}`);
  return d;
};

describe('RedirectService.answer', () => {
  it("looks the visitor's country up only for a link with a country rule, and serves by it", async () => {
    const asked: (string | null)[] = [];
    const h = harness(asked);
    h.entities.orgMap.set('org-1', organizationOf('org-1', 'PRO'));
    const rule = (type: 'countryCode' | 'language', value: string) => [{ conditions: [{ type, value }], url: `https://${value.toLowerCase()}.example/` }];
    h.entities.linkMap.set('country', linkOf({ orgId: 'org-1', shortCode: 'country', rules: rule('countryCode', 'DE') }));
    h.entities.linkMap.set('language', linkOf({ orgId: 'org-1', shortCode: 'language', rules: rule('language', 'de') }));
    h.entities.linkMap.set('plainly', linkOf({ orgId: 'org-1', shortCode: 'plainly' }));
    expect(httpAnswer(await h.service.answer(visit('plainly'), facts(), Date.now())).location).toBe('https://dest.example/');
    expect(httpAnswer(await h.service.answer(visit('language'), facts({ acceptLanguage: 'de' }), Date.now())).location).toBe('https://de.example/');
    expect(asked).toEqual([]);
    expect(httpAnswer(await h.service.answer(visit('country'), facts(), Date.now())).location).toBe('https://de.example/');
    expect(httpAnswer(await h.service.answer(visit('country'), facts({ ip: '198.51.100.1' }), Date.now())).location).toBe('https://dest.example/');
    expect(asked).toEqual(['192.0.2.1', '198.51.100.1']);
  });

  it('answers a cold code once loaded (one load for concurrent requests), then synchronously from the cache', async () => {
    const h = harness();
    h.entities.orgMap.set('org-1', organizationOf('org-1', 'PRO'));
    h.entities.linkMap.set('abcdefg', linkOf({ orgId: 'org-1', url: 'https://dest.example/a' }));
    const first = h.service.answer(visit('abcdefg'), facts(), Date.now());
    const second = h.service.answer(visit('abcdefg'), facts(), Date.now());
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    for (const d of await Promise.all([first, second])) expect(httpAnswer(d)).toMatchObject({ status: '302 Found', location: 'https://dest.example/a' });
    expect(h.entities.calls).toMatchObject({ links: 1, orgs: 1 });
    const cached = h.service.answer(visit('abcdefg'), facts(), Date.now());
    expect(cached).not.toBeInstanceOf(Promise);
    expect(httpAnswer(cached as Decision)).toMatchObject({ status: '302 Found', outcome: 'redirect' });
    expect(h.sink.hits).toHaveLength(3);
    expect(h.quota.pendingClicks).toBe(3);
    expect(h.errors).toEqual([]);
  });

  it("loads a link's organisation and every app it names together, in one call per kind", async () => {
    const h = harness();
    h.entities.orgMap.set('org-1', organizationOf('org-1', 'PRO'));
    const ios = mobileAppOf('IOS', 'org-1', { mobileAppId: 'app-ios-0001' });
    const android = mobileAppOf('ANDROID', 'org-1', { mobileAppId: 'app-and-0001' });
    for (const app of [ios, android]) h.entities.appMap.set(app.mobileAppId, app);
    h.entities.linkMap.set(
      'deeplnk',
      linkOf({ orgId: 'org-1', shortCode: 'deeplnk', deepLinks: [deepLinkOf(ios.mobileAppId), deepLinkOf(android.mobileAppId)] }),
    );
    const d = await h.service.answer(visit('deeplnk'), facts(), Date.now());
    expect(httpAnswer(d).outcome).toBe('redirect');
    expect(h.entities.calls).toMatchObject({ links: 1, orgs: 1, apps: 1 });
  });

  it('admits a FREE organisation up to its monthly clicks, then answers 402 QE002; each admitted click is counted once', async () => {
    const h = harness();
    h.entities.orgMap.set('org-free', organizationOf('org-free', 'FREE', 2));
    h.entities.linkMap.set('freeone', linkOf({ orgId: 'org-free', shortCode: 'freeone' }));
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) outcomes.push(httpAnswer(await h.service.answer(visit('freeone'), facts(), Date.now())).outcome);
    expect(outcomes).toEqual(['redirect', 'redirect', 'quota_exhausted', 'quota_exhausted']);
    expect(h.sink.hits).toHaveLength(2);
    await h.quota.close();
    expect(await h.usage.read('org-free', billingPeriod(Date.now()).periodStart)).toBe(2);
  });

  it('a bot is served and recorded but takes nothing: a maxClicks 1 link outlives a scanner, a crawler and curl, then serves one person; a FREE quota counts only people', async () => {
    const h = harness();
    h.entities.orgMap.set('org-free', organizationOf('org-free', 'FREE', 2));
    h.entities.linkMap.set('onetime', linkOf({ orgId: 'org-free', shortCode: 'onetime', maxClicks: 1 }));
    const outcomes: string[] = [];
    for (const userAgent of BOTS) outcomes.push(httpAnswer(await h.service.answer(visit('onetime'), facts({ userAgent }), Date.now())).outcome);
    expect(outcomes).toEqual(['redirect', 'preview', 'redirect']);
    expect(httpAnswer(await h.service.answer(visit('onetime'), facts(), Date.now())).outcome).toBe('redirect');
    expect(httpAnswer(await h.service.answer(visit('onetime'), facts(), Date.now())).outcome).toBe('expired');
    // Every served visit is recorded, the bots' included; the quota counted the one person.
    expect(h.sink.hits.map((hit) => hit.userAgent)).toEqual([...BOTS, FIREFOX]);
    await h.quota.close();
    expect(await h.usage.read('org-free', billingPeriod(Date.now()).periodStart)).toBe(1);
  });

  it('records nothing for a request whose client hung up while its answer waited for a load', async () => {
    const h = harness();
    h.entities.orgMap.set('org-1', organizationOf('org-1', 'PRO'));
    h.entities.linkMap.set('gonenow', linkOf({ orgId: 'org-1', shortCode: 'gonenow' }));
    const f = facts();
    const pending = h.service.answer(visit('gonenow'), f, Date.now());
    f.aborted = true;
    expect(await pending).toBeNull();
    expect(h.sink.hits).toHaveLength(0);
    expect(h.quota.pendingClicks).toBe(0);
  });

  it('answers a path that is no short code as an unknown code, synchronously, loading nothing', () => {
    const h = harness();
    const d = httpAnswer(h.service.answerMissing('a.b/c', facts({ accept: 'application/json' }), Date.now()));
    expect(d).toMatchObject({ status: '404 Not Found', outcome: 'not_found', hit: null });
    expect(h.entities.calls).toEqual({ links: 0, orgs: 0, apps: 0, domains: 0 });
  });
});
