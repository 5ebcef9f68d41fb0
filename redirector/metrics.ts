// Invariant: metrics are plain numbers owned by one process and changed synchronously on the hot
// path (no allocation, no label parsing, no metrics library). A snapshot is a flat name→number
// map for tests; Prometheus reads the same numbers at scrape time through collect() callbacks
// (exposeRedirectorMetrics), served on METRICS_PORT, never on the redirect port. Every lookup a
// tier did not answer was answered by a tier below it, so a tier's misses are the sum of the
// lower tiers' answers, derived at scrape time (the hot path counts only the answering tier).
import type { Registry } from 'prom-client';
import { readMetric } from '../shared/runtime/prometheus-metrics.ts';
import type { CacheTier } from '../shared/cache/tiered-cache.ts';
import { OUTCOMES, type Outcome } from '../shared/redirects/model/outcomes.ts';
import { ENTITY_KINDS, type EntityKind } from './entity-kinds.ts';

/** Answers the transport gives itself (no decision behind them). */
const TRANSPORT_OUTCOMES = ['password_form', 'qr_refused', 'health', 'bad_method', 'error'] as const;

export type RequestOutcome = Outcome | (typeof TRANSPORT_OUTCOMES)[number];

/** Every outcome a request is counted under: each decision's, then the transport's own. */
const REQUEST_OUTCOMES: readonly RequestOutcome[] = [...OUTCOMES, ...TRANSPORT_OUTCOMES];
const KINDS: readonly EntityKind[] = ENTITY_KINDS;
const TIERS: readonly CacheTier[] = ['lru', 'redis', 'postgres'];

export type MetricsSnapshot = Record<string, number>;

export type CacheHitCounters = Record<CacheTier, number>;

export interface GaugeSources {
  eventQueueDepth?: () => number;
  eventFlushLatencyMs?: () => number | null;
  pendingClicks?: () => number;
}

export class RedirectorMetrics {
  readonly #requests = new Map<RequestOutcome, { n: number }>(REQUEST_OUTCOMES.map((o) => [o, { n: 0 }]));
  readonly #cache: Record<EntityKind, CacheHitCounters> = {
    link: { lru: 0, redis: 0, postgres: 0 },
    org: { lru: 0, redis: 0, postgres: 0 },
    app: { lru: 0, redis: 0, postgres: 0 },
    domain: { lru: 0, redis: 0, postgres: 0 },
  };
  #flushCount = 0;
  #flushSecondsSum = 0;
  #errors = 0;
  #hits = 0;
  gauges: GaugeSources = {};

  request(outcome: RequestOutcome): void {
    const c = this.#requests.get(outcome);
    if (c) c.n++;
  }

  /** The counters of one entity kind, for its cache to increment by name (no keyed access per hit). */
  cacheCounters(kind: EntityKind): CacheHitCounters {
    return this.#cache[kind];
  }

  hitRecorded(): void {
    this.#hits++;
  }

  usageFlushed(latencyMs: number): void {
    this.#flushCount++;
    this.#flushSecondsSum += latencyMs / 1000;
  }

  error(): void {
    this.#errors++;
  }

  /**
   * Lookups of `kind` that a tier did not answer: for the LRU, those answered by Redis or
   * Postgres; for Redis (only where this process has that tier), those loaded from Postgres.
   */
  cacheMisses(kind: EntityKind, sharedTier: boolean): Array<readonly [CacheTier, number]> {
    const c = this.#cache[kind];
    const misses: Array<readonly [CacheTier, number]> = [['lru', c.redis + c.postgres]];
    if (sharedTier) misses.push(['redis', c.postgres]);
    return misses;
  }

  requestCounts(): Array<readonly [{ outcome: RequestOutcome }, number]> {
    return [...this.#requests].map(([outcome, c]) => [{ outcome }, c.n] as const);
  }

  snapshot(): MetricsSnapshot {
    const s: MetricsSnapshot = {};
    for (const [o, c] of this.#requests) s[`redirector_requests_total{outcome="${o}"}`] = c.n;
    for (const k of KINDS) for (const t of TIERS) s[`redirector_cache_hits_total{kind="${k}",tier="${t}"}`] = this.#cache[k][t];
    s.redirector_events_handed_off_total = this.#hits;
    s.redirector_internal_errors_total = this.#errors;
    s.redirector_event_queue_depth = this.gauges.eventQueueDepth?.() ?? 0;
    s.redirector_event_flush_latency_seconds = (this.gauges.eventFlushLatencyMs?.() ?? 0) / 1000;
    s.redirector_click_counts_pending = this.gauges.pendingClicks?.() ?? 0;
    s.redirector_usage_flushes_total = this.#flushCount;
    s.redirector_usage_flush_seconds_total = this.#flushSecondsSum;
    s.redirector_workers = 1;
    return s;
  }
}

/**
 * Registers the counters of `m` in a prom-client registry. Nothing is recorded through
 * prom-client: each scrape reads the plain numbers above through collect(), so the hot path
 * costs the same increments as before. Summed across cluster workers, except the flush latency
 * (the worst worker's).
 */
export function exposeRedirectorMetrics(registry: Registry, m: RedirectorMetrics, o: { sharedTier: boolean }): void {
  readMetric(registry, 'counter', 'redirector_requests_total', 'Requests answered, by outcome.', () => m.requestCounts(), { labelNames: ['outcome'] });
  readMetric(
    registry,
    'counter',
    'redirector_cache_hits_total',
    'Entity lookups answered, by entity kind and by the tier that answered (postgres = loaded from the database).',
    () => KINDS.flatMap((kind) => TIERS.map((tier) => [{ kind, tier }, m.cacheCounters(kind)[tier]] as const)),
    { labelNames: ['kind', 'tier'] },
  );
  readMetric(
    registry,
    'counter',
    'redirector_cache_misses_total',
    'Entity lookups a cache tier did not answer (passed on to the tier below), by entity kind and tier: lru, and redis where the process has that tier.',
    () => KINDS.flatMap((kind) => m.cacheMisses(kind, o.sharedTier).map(([tier, n]) => [{ kind, tier }, n] as const)),
    { labelNames: ['kind', 'tier'] },
  );
  readMetric(
    registry,
    'counter',
    'redirector_events_handed_off_total',
    'Click and preview events handed to the analytics sink.',
    () => m.snapshot().redirector_events_handed_off_total ?? 0,
  );
  readMetric(
    registry,
    'counter',
    'redirector_internal_errors_total',
    'Requests that failed with an internal error (500).',
    () => m.snapshot().redirector_internal_errors_total ?? 0,
  );
  readMetric(
    registry,
    'gauge',
    'redirector_event_queue_depth',
    'Analytics events waiting in the write buffer (all workers).',
    () => m.gauges.eventQueueDepth?.() ?? 0,
  );
  readMetric(
    registry,
    'gauge',
    'redirector_event_flush_latency_seconds',
    'Latency of the last analytics batch write (worst worker).',
    () => (m.gauges.eventFlushLatencyMs?.() ?? 0) / 1000,
    { aggregator: 'max' },
  );
  readMetric(registry, 'gauge', 'redirector_click_counts_pending', 'Served clicks not yet added to usage_counters.', () => m.gauges.pendingClicks?.() ?? 0);
  readMetric(
    registry,
    'counter',
    'redirector_usage_flushes_total',
    'Click-usage flushes (Postgres + counter store).',
    () => m.snapshot().redirector_usage_flushes_total ?? 0,
  );
  readMetric(
    registry,
    'counter',
    'redirector_usage_flush_seconds_total',
    'Time spent in click-usage flushes.',
    () => m.snapshot().redirector_usage_flush_seconds_total ?? 0,
  );
  readMetric(registry, 'gauge', 'redirector_workers', 'Worker processes whose metrics are included.', () => 1);
}
