// Invariant: the redirector of one process is assembled here from ports the composition root
// opened (database, bus, cache tier, click counter, usage store, hit sink): metrics, the
// resolver subscribed to the bus, the click quota flushing on its timer, the redirect service,
// and the uWS server. Nothing here chooses a backend. close() drains the server first (stops
// accepting, answers what it received, within SHUTDOWN_GRACE_MS), then stops hearing
// invalidations, then flushes the click counts.
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import type { InvalidationBus } from '../shared/bus/invalidation-bus.ts';
import type { SharedCacheTier } from '../shared/cache/shared-cache-tier.ts';
import { DEFAULT_LINK_CACHE_MAX_BYTES, shortLinkBase, type RedirectorConfig } from '../shared/config/config.ts';
import type { Sql } from '../shared/db/database.ts';
import { createLogger, type Logger } from '../shared/log/logger.ts';
import type { ClickCounterStore } from '../shared/quotas/click-counter-store.ts';
import { ClickQuota } from '../shared/quotas/click-quota.ts';
import type { UsageStore } from '../shared/quotas/usage-store.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';
import { loadPasswordCookieSecret, PasswordCookies } from '../shared/links/password-cookie.ts';
import { type LinkClickCounter, LinkClickAdmission } from '../shared/quotas/link-click-counter.ts';
import { QrRenderer } from './qr-renderer.ts';
import { VisitorCountry } from './visitor-country.ts';
import type { Registry } from 'prom-client';
import { exposeRedirectorMetrics, RedirectorMetrics, type MetricsSnapshot } from './metrics.ts';
import { postgresEntitySource } from './entity-source.ts';
import { RedirectResolver } from './redirect-resolver.ts';
import { RedirectService } from './redirect-service.ts';
import { LiveWorkers, type WorkerRegistry } from '../shared/quotas/live-workers.ts';
import type { Readiness } from '../shared/runtime/readiness.ts';
import { serveRedirects } from './redirector-server.ts';

export interface RedirectorDeps {
  sql: Sql;
  bus: InvalidationBus;
  /** The shared Redis tier; null in embedded mode. */
  cacheTier: SharedCacheTier | null;
  clickCounter: ClickCounterStore;
  /** Per-link click counters (maxClicks): Redis, or memory in one-process setups. */
  linkClicks: LinkClickCounter;
  /** Link-password tries, per address and link. */
  rateLimiter: RateLimiter;
  usageStore: UsageStore;
  hitSink: HitSink;
  config: Pick<RedirectorConfig, 'REDIRECT_HOST' | 'REDIRECT_PORT' | 'LINK_CACHE_ENTRIES' | 'TRUST_PROXY'> &
    Partial<
      Pick<
        RedirectorConfig,
        'SHUTDOWN_GRACE_MS' | 'DEFAULT_SHORT_DOMAIN' | 'SHORT_LINK_BASE_URL' | 'QR_RENDERS_PER_MINUTE' | 'QR_CACHE_MAX_BYTES' | 'LINK_CACHE_MAX_BYTES'
      >
    >;
  /**
   * The fleet's registry of live redirector workers (Redis; null or absent in one-process setups)
   * and this host's worker count: while the click counter store is down, a worker admits its
   * share of what is left, by the fleet's live workers as last seen.
   */
  fleet?: { registry: WorkerRegistry | null; hostWorkers: number };
  /** GET /readyz; default: ready once listening (503 from the drain on either way). */
  readiness?: Readiness;
  /** The process's Prometheus registry; the hot counters are read into it at scrape time. */
  metricsRegistry?: Registry;
  /** Click-usage flush period (ms). Default 1000. */
  usageFlushIntervalMs?: number;
  /** The process's logger (failures, at most one line per 5 s); default: JSON on stderr. */
  logger?: Logger;
}

export interface RedirectorServer {
  port: number;
  metrics: RedirectorMetrics;
  /** Snapshot of this process's metrics (the cluster primary merges them). */
  metricsSnapshot(): MetricsSnapshot;
  /** QR images drawn by this process so far. */
  qrDrawn(): number;
  close(): Promise<void>;
}

const ERROR_LOG_INTERVAL_MS = 5_000;
const DEFAULT_GRACE_MS = 10_000;
const DEFAULT_QR_RENDERS_PER_MINUTE = 60;
const DEFAULT_QR_CACHE_MAX_BYTES = 32 * 1024 * 1024;

export async function createRedirectorServer(deps: RedirectorDeps): Promise<RedirectorServer> {
  const { config } = deps;
  const logger = deps.logger ?? createLogger('redirector', 'info');
  const metrics = new RedirectorMetrics();
  if (deps.metricsRegistry) exposeRedirectorMetrics(deps.metricsRegistry, metrics, { sharedTier: deps.cacheTier !== null });
  let lastErrorLog = 0;
  const onError = (err: unknown): void => {
    metrics.error();
    const now = Date.now();
    if (now - lastErrorLog > ERROR_LOG_INTERVAL_MS) {
      lastErrorLog = now;
      logger.error({ err }, 'redirector error');
    }
  };

  const resolver = new RedirectResolver({
    entities: postgresEntitySource(deps.sql),
    cacheTier: deps.cacheTier,
    linkCacheEntries: config.LINK_CACHE_ENTRIES,
    linkCacheMaxBytes: config.LINK_CACHE_MAX_BYTES ?? DEFAULT_LINK_CACHE_MAX_BYTES,
    shortLinkBase: shortLinkBase(config),
    hits: (kind) => metrics.cacheCounters(kind),
    onError,
  });
  const hostWorkers = deps.fleet?.hostWorkers ?? 1;
  const live = deps.fleet?.registry ? new LiveWorkers({ registry: deps.fleet.registry, hostWorkers, onError }) : null;
  await live?.start();
  const quota = new ClickQuota({
    store: deps.clickCounter,
    usage: deps.usageStore,
    liveWorkers: live?.current ?? (() => hostWorkers),
    flushIntervalMs: deps.usageFlushIntervalMs ?? 1_000,
    onFlush: (ms) => metrics.usageFlushed(ms),
    onError,
  });
  metrics.gauges = {
    pendingClicks: () => quota.pendingClicks,
    eventQueueDepth: () => deps.hitSink.metrics().queueDepth,
    eventFlushLatencyMs: () => deps.hitSink.metrics().lastFlushLatencyMs,
  };
  await resolver.subscribe(deps.bus);
  quota.start();
  const passwordCookies = new PasswordCookies(await loadPasswordCookieSecret(deps.sql));
  const country = new VisitorCountry();
  const service = new RedirectService({
    resolver,
    quota,
    hitSink: deps.hitSink,
    metrics,
    onError,
    linkClicks: new LinkClickAdmission(deps.linkClicks),
    passwordCookies,
    countryOf: (ip) => country.of(ip),
  });
  const passwordLimiter = deps.rateLimiter;
  const qrRendersPerMinute = config.QR_RENDERS_PER_MINUTE ?? DEFAULT_QR_RENDERS_PER_MINUTE;
  const qr = new QrRenderer({ cacheMaxBytes: config.QR_CACHE_MAX_BYTES ?? DEFAULT_QR_CACHE_MAX_BYTES, rendersPerMinute: qrRendersPerMinute });
  const server = await serveRedirects({
    service,
    metrics,
    qr,
    qrRendersPerMinute,
    host: config.REDIRECT_HOST,
    port: config.REDIRECT_PORT,
    trustProxy: config.TRUST_PROXY,
    passwords: { cookies: passwordCookies, limiter: passwordLimiter, secureCookies: shortLinkBase(config).startsWith('https:') },
    readiness: () => deps.readiness?.state ?? 'ready',
    onError,
  });

  let closed: Promise<void> | null = null;
  return {
    port: server.port,
    metrics,
    metricsSnapshot: () => metrics.snapshot(),
    qrDrawn: () => qr.drawn,
    close: () =>
      (closed ??= (async () => {
        await server.drain(config.SHUTDOWN_GRACE_MS ?? DEFAULT_GRACE_MS);
        await resolver.unsubscribe();
        await quota.close();
        await live?.stop();
        await qr.close();
      })()),
  };
}
