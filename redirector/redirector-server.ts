// Invariant: one uWS app per call, in the current process. The handler copies every request
// fact before any await, attaches onAborted before going asynchronous, and writes the answer of
// decideRedirect inside cork(). An LRU hit is answered synchronously with no network round trip.
// Each served click or preview hands exactly one RawHit to the sink and (clicks only) counts one
// click; HEAD and error answers hand off and count nothing.
import type { Redis } from 'ioredis';
import type uWS from 'uWebSockets.js';
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import type { InvalidationBus } from '../shared/bus/invalidation-bus.ts';
import type { RedirectorConfig } from '../shared/config/config.ts';
import type { Sql } from '../shared/db/database.ts';
import { MemoryClickCounterStore, RedisClickCounterStore } from '../shared/quotas/click-counter-store.ts';
import { ClickQuota } from '../shared/quotas/click-quota.ts';
import type { QuotaView } from '../shared/quotas/quota-view.ts';
import type { MobileApp } from '../shared/apps/mobile-app-repository.ts';
import type { Domain } from '../shared/domains/domain-repository.ts';
import { normalizeHost } from '../shared/domains/host-name.ts';
import type { Link } from '../shared/links/link.ts';
import type { Organization } from '../shared/orgs/organization.ts';
import { decideRedirect, quotaApplies, REDIRECT_CACHE_CONTROL, type DecisionInput, type HttpAnswer, type QrAnswer, type Route } from './decide-redirect.ts';
import { LinkResolver } from './link-resolver.ts';
import { mergeSnapshots, RedirectorMetrics, renderPrometheus, type MetricsSnapshot } from './metrics.ts';
import { renderQr } from './qr-codes.ts';
import { buildRawHit } from './raw-hit-builder.ts';
import { RedisCacheTier, currentCacheEpoch } from '../shared/cache/redis-cache-tier.ts';
import { queryHasQr, type RequestFacts } from './request-facts.ts';
import { addClickUsage, readClickUsage } from '../shared/quotas/usage-store.ts';
import { nativeUws } from './uws-native.ts';

/** A sink may expose the write buffer's metrics (EventWriteBuffer does); they feed /metrics. */
interface SinkMetrics {
  metrics(): { queueDepth: number; lastFlushLatencyMs: number | null };
}

export interface RedirectorDeps {
  sql: Sql;
  bus: InvalidationBus;
  /** null: embedded mode (no Redis tier, in-memory click counter). */
  redis: Redis | null;
  config: Pick<RedirectorConfig, 'REDIRECT_HOST' | 'REDIRECT_PORT' | 'LINK_CACHE_ENTRIES' | 'TRUST_PROXY' | 'DEFAULT_SHORT_DOMAIN' | 'REDIS_PREFIX'>;
  hitSink: HitSink;
  /** Redis cache epoch (the cluster primary starts one); default: the current one. */
  cacheEpoch?: string;
  /** Workers sharing this host's traffic (bounds admissions while Redis is down). Default 1. */
  workersHint?: number;
  /** Cluster: gathers every worker's snapshot; default: this process only. */
  gatherMetrics?: (local: MetricsSnapshot) => Promise<MetricsSnapshot>;
  /** Click-usage flush period (ms). Default 1000. */
  usageFlushIntervalMs?: number;
  log?: (message: string) => void;
}

export interface RedirectorServer {
  port: number;
  metrics: RedirectorMetrics;
  /** Snapshot of this process's metrics (the cluster primary merges them). */
  metricsSnapshot(): MetricsSnapshot;
  close(): Promise<void>;
}

const EMPTY_APPS: ReadonlyMap<string, MobileApp | null> = new Map();
/** Constant header names and status lines, encoded once: uWS reads byte arrays without converting. */
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const H = {
  host: bytes('host'),
  accept: bytes('accept'),
  userAgent: bytes('user-agent'),
  referer: bytes('referer'),
  secFetchDest: bytes('sec-fetch-dest'),
  secFetchMode: bytes('sec-fetch-mode'),
  xForwardedFor: bytes('x-forwarded-for'),
  location: bytes('Location'),
  cacheControl: bytes('Cache-Control'),
  contentType: bytes('Content-Type'),
  csp: bytes('Content-Security-Policy'),
  nosniff: bytes('X-Content-Type-Options'),
};
const CACHE_CONTROL_VALUE = bytes(REDIRECT_CACHE_CONTROL);
const STATUS_302 = '302 Found';
const STATUS_302_BYTES = bytes(STATUS_302);
const CODE = /^\/([A-Za-z0-9_-]{1,64})(?:\/qr\.(svg|png))?$/;

function parseRoute(url: string): Route | string {
  const m = CODE.exec(url);
  if (!m) return url.slice(1, 65);
  const code = m[1] as string;
  const format = m[2];
  return format === 'svg' || format === 'png' ? { kind: 'qr', shortCode: code, format } : { kind: 'visit', shortCode: code };
}

function hasSinkMetrics(sink: HitSink): sink is HitSink & SinkMetrics {
  return typeof (sink as Partial<SinkMetrics>).metrics === 'function';
}

const IPV4_TEXT_CACHE_LIMIT = 10_000;
const ipv4Text = new Map<number, string>();

function ipv4(a: number, b: number, c: number, d: number): string {
  const key = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  let text = ipv4Text.get(key);
  if (text === undefined) {
    text = `${a}.${b}.${c}.${d}`;
    if (ipv4Text.size >= IPV4_TEXT_CACHE_LIMIT) ipv4Text.clear();
    ipv4Text.set(key, text);
  }
  return text;
}

/** The peer address as text; IPv4 and IPv4-mapped addresses are formatted from the raw bytes. */
function remoteAddress(res: uWS.HttpResponse): string | null {
  const b = new Uint8Array(res.getRemoteAddress());
  if (b.length === 4) return ipv4(b[0] ?? 0, b[1] ?? 0, b[2] ?? 0, b[3] ?? 0);
  if (b.length === 16 && b[10] === 0xff && b[11] === 0xff && b[0] === 0 && b[1] === 0 && b[2] === 0 && b[3] === 0 && b[4] === 0 && b[5] === 0 && b[6] === 0 && b[7] === 0 && b[8] === 0 && b[9] === 0) {
    return ipv4(b[12] ?? 0, b[13] ?? 0, b[14] ?? 0, b[15] ?? 0);
  }
  const text = Buffer.from(res.getRemoteAddressAsText()).toString();
  return text === '' ? null : text;
}

export async function createRedirectorServer(deps: RedirectorDeps): Promise<RedirectorServer> {
  const uws = nativeUws();
  const { config, sql, redis, hitSink } = deps;
  const log = deps.log ?? ((m: string) => process.stderr.write(`[redirector] ${m}\n`));
  const metrics = new RedirectorMetrics();
  const defaultHost = normalizeHost(config.DEFAULT_SHORT_DOMAIN);
  const trustProxy = config.TRUST_PROXY;
  let lastErrorLog = 0;
  const onError = (err: unknown): void => {
    metrics.error();
    const now = Date.now();
    if (now - lastErrorLog > 5_000) {
      lastErrorLog = now;
      log(`error: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    }
  };

  const epoch = redis ? (deps.cacheEpoch ?? (await currentCacheEpoch(redis, config.REDIS_PREFIX))) : '';
  const resolver = new LinkResolver({
    sql,
    redis: redis ? new RedisCacheTier(redis, config.REDIS_PREFIX, epoch) : null,
    linkCacheEntries: config.LINK_CACHE_ENTRIES,
    hits: (kind) => metrics.cacheCounters(kind),
    onError,
  });
  const quota = new ClickQuota({
    store: redis ? new RedisClickCounterStore(redis, config.REDIS_PREFIX) : new MemoryClickCounterStore(),
    usage: { add: (d) => addClickUsage(sql, d), read: (org, period) => readClickUsage(sql, org, period) },
    workersHint: deps.workersHint ?? 1,
    flushIntervalMs: deps.usageFlushIntervalMs ?? 1_000,
    onFlush: (ms) => metrics.usageFlushed(ms),
    onError,
  });
  metrics.gauges = {
    pendingClicks: () => quota.pendingClicks,
    ...(hasSinkMetrics(hitSink)
      ? { eventQueueDepth: () => hitSink.metrics().queueDepth, eventFlushLatencyMs: () => hitSink.metrics().lastFlushLatencyMs }
      : {}),
  };
  await resolver.subscribe(deps.bus);
  quota.start();

  // ---- request facts (synchronous copy) ----
  function readFacts(res: uWS.HttpResponse, req: uWS.HttpRequest, method: 'GET' | 'HEAD'): RequestFacts {
    const referrer = req.getHeader(H.referer);
    let ip: string | null = null;
    if (trustProxy) {
      const xff = req.getHeader(H.xForwardedFor);
      if (xff !== '') ip = (xff.split(',')[0] ?? '').trim() || null;
    }
    ip ??= remoteAddress(res);
    return {
      method,
      host: normalizeHost(req.getHeader(H.host)),
      qr: queryHasQr(req.getQuery() ?? ''),
      accept: req.getHeader(H.accept),
      userAgent: req.getHeader(H.userAgent),
      referrer: referrer === '' ? null : referrer,
      secFetchDest: req.getHeader(H.secFetchDest),
      secFetchMode: req.getHeader(H.secFetchMode),
      ip,
    };
  }

  // ---- resolution: synchronous when every entity is a fresh LRU hit ----
  function baseInput(route: Route, link: Link | null, hostDomain: Domain | null): DecisionInput {
    return { route, link, hostDomain, linkDomain: null, org: null, apps: EMPTY_APPS, quota: null, defaultShortDomain: defaultHost };
  }

  function resolveSync(route: Route, facts: RequestFacts): DecisionInput | undefined {
    let hostDomain: Domain | null = null;
    if (facts.host !== defaultHost && facts.host !== '') {
      const d = resolver.domains.peek(facts.host);
      if (d === undefined) return undefined;
      hostDomain = d;
    }
    const link = resolver.links.peek(route.shortCode);
    if (link === undefined) return undefined;
    const input = baseInput(route, link, hostDomain);
    if (link === null || !link.isActive || (hostDomain !== null && hostDomain.orgId !== link.orgId)) return input;
    if (route.kind === 'qr') {
      if (link.domainHost !== null) {
        const d = resolver.domains.peek(link.domainHost);
        if (d === undefined) return undefined;
        input.linkDomain = d;
      }
      return input;
    }
    const org = resolver.orgs.peek(link.orgId);
    if (org === undefined) return undefined;
    input.org = org;
    if (link.deepLinks.length > 0) {
      const apps = new Map<string, MobileApp | null>();
      for (const entry of link.deepLinks) {
        const app = resolver.apps.peek(entry.mobileAppId);
        if (app === undefined) return undefined;
        apps.set(entry.mobileAppId, app);
      }
      input.apps = apps;
    }
    return input;
  }

  async function resolveAsync(route: Route, facts: RequestFacts): Promise<DecisionInput> {
    const hostDomain = facts.host !== defaultHost && facts.host !== '' ? await resolver.domains.get(facts.host) : null;
    const link = await resolver.links.get(route.shortCode);
    const input = baseInput(route, link, hostDomain);
    if (link === null || !link.isActive || (hostDomain !== null && hostDomain.orgId !== link.orgId)) return input;
    if (route.kind === 'qr') {
      if (link.domainHost !== null) input.linkDomain = await resolver.domains.get(link.domainHost);
      return input;
    }
    const [org, apps] = await Promise.all([
      resolver.orgs.get(link.orgId),
      link.deepLinks.length === 0
        ? Promise.resolve(EMPTY_APPS)
        : Promise.all(link.deepLinks.map(async (e) => [e.mobileAppId, await resolver.apps.get(e.mobileAppId)] as const)).then((pairs) => new Map(pairs)),
    ]);
    input.org = org;
    input.apps = apps;
    return input;
  }

  /** The admission answer now; undefined when a lease must be awaited first. */
  function quotaFor(input: DecisionInput, facts: RequestFacts, now: number): QuotaView | null | undefined {
    const org: Organization | null = input.org;
    if (org === null || !quotaApplies(input, facts)) return null;
    return quota.view(org, now);
  }

  // ---- writing ----
  function writeAnswer(res: uWS.HttpResponse, a: HttpAnswer, head: boolean): void {
    res.writeStatus(a.status === STATUS_302 ? STATUS_302_BYTES : a.status);
    if (a.location !== null) res.writeHeader(H.location, a.location);
    res.writeHeader(H.cacheControl, CACHE_CONTROL_VALUE);
    if (a.contentType !== null) res.writeHeader(H.contentType, a.contentType);
    if (a.contentSecurityPolicy !== null) {
      res.writeHeader(H.csp, a.contentSecurityPolicy);
      res.writeHeader(H.nosniff, 'nosniff');
    }
    if (head) res.endWithoutBody();
    else if (a.body === '') res.end();
    else res.end(a.body);
  }

  function writeInternalError(res: uWS.HttpResponse, head: boolean): void {
    res.writeStatus('500 Internal Server Error').writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
    if (head) res.endWithoutBody();
    else res.end('{"errors":[{"code":"SML001","message":"Internal server error"}]}');
  }

  /**
   * Decides and answers. Runs synchronously from the quota check to the click count, so a lease
   * unit is never promised to two requests. Returns 'needs-lease' (nothing written) when the quota
   * must take a lease first, or the QR decision for the caller to render.
   */
  function answer(res: uWS.HttpResponse, input: DecisionInput, facts: RequestFacts, now: number, afterPrepare: boolean): 'done' | 'needs-lease' | QrAnswer {
    const q = quotaFor(input, facts, now);
    if (q === undefined && !afterPrepare) return 'needs-lease';
    input.quota = q === undefined ? (input.org ? quota.viewAfterPrepare(input.org, now) : null) : q;
    const decision = decideRedirect(input, facts, now);
    if (decision.kind === 'qr') return decision;
    writeAnswer(res, decision, facts.method === 'HEAD');
    metrics.request(decision.outcome);
    const link = input.link;
    if (decision.hit !== null && link !== null) {
      try {
        hitSink.push(buildRawHit(link, facts, decision.hit, now));
        metrics.hitRecorded();
      } catch (err) {
        onError(err);
      }
      if (decision.hit.eventType === 'CLICK' && input.org !== null) quota.record(input.org, now);
    }
    return 'done';
  }

  async function answerAsync(res: uWS.HttpResponse, route: Route, facts: RequestFacts, aborted: { value: boolean }): Promise<void> {
    const input = await resolveAsync(route, facts);
    if (input.org !== null && quotaFor(input, facts, Date.now()) === undefined) await quota.settle(input.org);
    if (aborted.value) return;
    const box: { result: ReturnType<typeof answer> } = { result: 'needs-lease' };
    // No await from here to the click count: the admission seen is the one recorded.
    res.cork(() => {
      box.result = answer(res, input, facts, Date.now(), true);
    });
    const qr = box.result;
    if (typeof qr === 'string') return;
    const image = await renderQr(qr.format, qr.content);
    if (aborted.value) return;
    metrics.request('qr');
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', image.contentType).writeHeader('Cache-Control', 'public, max-age=300');
      if (facts.method === 'HEAD') res.endWithoutBody();
      else res.end(image.body);
    });
  }

  function handleCode(res: uWS.HttpResponse, req: uWS.HttpRequest, method: 'GET' | 'HEAD', url: string): void {
    const facts = readFacts(res, req, method);
    const parsed = parseRoute(url);
    const now = Date.now();
    if (typeof parsed === 'string') {
      // Not a short-code path: the same 404 EN001 an unknown code gets.
      const route: Route = { kind: 'visit', shortCode: parsed };
      answer(res, baseInput(route, null, null), facts, now, true);
      return;
    }
    if (parsed.kind === 'visit') {
      const input = resolveSync(parsed, facts);
      // Still inside the request handler: uWS corks what is written synchronously here.
      if (input !== undefined && answer(res, input, facts, now, false) === 'done') return;
    }
    const aborted = { value: false };
    res.onAborted(() => {
      aborted.value = true;
    });
    answerAsync(res, parsed, facts, aborted).catch((err: unknown) => {
      onError(err);
      if (!aborted.value) res.cork(() => writeInternalError(res, method === 'HEAD'));
    });
  }

  async function handleMetrics(res: uWS.HttpResponse): Promise<void> {
    const aborted = { value: false };
    res.onAborted(() => {
      aborted.value = true;
    });
    metrics.request('metrics');
    let snapshot = metrics.snapshot();
    try {
      if (deps.gatherMetrics) snapshot = await deps.gatherMetrics(snapshot);
    } catch (err) {
      onError(err);
    }
    if (aborted.value) return;
    const body = renderPrometheus(snapshot);
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'text/plain; version=0.0.4; charset=utf-8').writeHeader('Cache-Control', 'no-store').end(body);
    });
  }

  const app = uws.App();
  app.any('/*', (res, req) => {
    const m = req.getMethod();
    const method = m === 'get' ? 'GET' : m === 'head' ? 'HEAD' : null;
    try {
      if (method === null) {
        metrics.request('bad_method');
        res.cork(() => {
          res.writeStatus('405 Method Not Allowed').writeHeader('Allow', 'GET, HEAD').writeHeader('Content-Type', 'application/json');
          res.end('{"errors":[{"code":"VE001","message":"Method not allowed; use GET or HEAD"}]}');
        });
        return;
      }
      const url = req.getUrl();
      if (url === '/healthz') {
        metrics.request('health');
        res.cork(() => {
          res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
          if (method === 'HEAD') res.endWithoutBody();
          else res.end('{"response":{"status":"ok"}}');
        });
        return;
      }
      if (url === '/metrics') {
        void handleMetrics(res);
        return;
      }
      handleCode(res, req, method, url);
    } catch (err) {
      onError(err);
      metrics.request('error');
      res.cork(() => writeInternalError(res, method === 'HEAD'));
    }
  });

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(config.REDIRECT_HOST, config.REDIRECT_PORT, (socket) => {
      if (socket) resolve(socket);
      else reject(new Error(`redirector cannot listen on ${config.REDIRECT_HOST}:${config.REDIRECT_PORT}`));
    });
  });
  const port = uws.us_socket_local_port(listenSocket);

  let closed: Promise<void> | null = null;
  return {
    port,
    metrics,
    metricsSnapshot: () => metrics.snapshot(),
    close: () =>
      (closed ??= (async () => {
        uws.us_listen_socket_close(listenSocket);
        (app as unknown as { close?: () => void }).close?.();
        await resolver.unsubscribe();
        await quota.close();
      })()),
  };
}

/** Merges snapshots of several workers (re-exported for the cluster primary). */
export { mergeSnapshots };
