// Invariant: metrics are plain numbers owned by one process and changed synchronously on the hot
// path (no allocation, no label parsing). A snapshot is a flat name→number map; snapshots of
// several workers add up key by key, and the Prometheus text is rendered from one (merged)
// snapshot only.
import type { CacheTier } from '../shared/cache/tiered-cache.ts';
import type { Outcome } from './decide-redirect.ts';
import { ENTITY_KINDS, type EntityKind } from './entity-kinds.ts';

export type RequestOutcome = Outcome | 'health' | 'metrics' | 'bad_method' | 'error' | 'qr_refused';

const OUTCOMES: readonly RequestOutcome[] = [
  'redirect',
  'cloak',
  'app_page',
  'app_fallback',
  'preview',
  'qr',
  'qr_refused',
  'not_found',
  'archived',
  'suspended',
  'quota_exhausted',
  'health',
  'metrics',
  'bad_method',
  'error',
];
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
  readonly #requests = new Map<RequestOutcome, { n: number }>(OUTCOMES.map((o) => [o, { n: 0 }]));
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

  snapshot(): MetricsSnapshot {
    const s: MetricsSnapshot = {};
    for (const [o, c] of this.#requests) s[`redirector_requests_total{outcome="${o}"}`] = c.n;
    for (const k of KINDS) for (const t of TIERS) s[`redirector_cache_hits_total{kind="${k}",tier="${t}"}`] = this.#cache[k][t];
    s['redirector_events_handed_off_total'] = this.#hits;
    s['redirector_internal_errors_total'] = this.#errors;
    s['redirector_event_queue_depth'] = this.gauges.eventQueueDepth?.() ?? 0;
    s['redirector_event_flush_latency_seconds'] = (this.gauges.eventFlushLatencyMs?.() ?? 0) / 1000;
    s['redirector_click_counts_pending'] = this.gauges.pendingClicks?.() ?? 0;
    s['redirector_usage_flush_seconds_count'] = this.#flushCount;
    s['redirector_usage_flush_seconds_sum'] = this.#flushSecondsSum;
    s['redirector_workers'] = 1;
    return s;
  }
}

export function mergeSnapshots(snapshots: readonly MetricsSnapshot[]): MetricsSnapshot {
  const out: MetricsSnapshot = {};
  for (const snap of snapshots) for (const [k, v] of Object.entries(snap)) out[k] = (out[k] ?? 0) + v;
  // A latency is not additive: report the worst worker's.
  const latencies = snapshots.map((s) => s['redirector_event_flush_latency_seconds'] ?? 0);
  out['redirector_event_flush_latency_seconds'] = latencies.length ? Math.max(...latencies) : 0;
  return out;
}

const HELP: Readonly<Record<string, [type: string, help: string]>> = {
  redirector_requests_total: ['counter', 'Requests answered, by outcome.'],
  redirector_cache_hits_total: ['counter', 'Entity lookups answered, by entity kind and by the tier that answered (postgres = loaded from the database).'],
  redirector_events_handed_off_total: ['counter', 'Click and preview events handed to the analytics sink.'],
  redirector_internal_errors_total: ['counter', 'Requests that failed with an internal error (500).'],
  redirector_event_queue_depth: ['gauge', 'Analytics events waiting in the write buffer (all workers).'],
  redirector_event_flush_latency_seconds: ['gauge', 'Latency of the last analytics batch write (worst worker).'],
  redirector_click_counts_pending: ['gauge', 'Served clicks not yet added to usage_counters.'],
  redirector_usage_flush_seconds: ['summary', 'Latency of click-usage flushes (Postgres + counter store).'],
  redirector_workers: ['gauge', 'Worker processes whose metrics are included.'],
};

export function renderPrometheus(snapshot: MetricsSnapshot): string {
  const byName = new Map<string, string[]>();
  for (const [key, value] of Object.entries(snapshot)) {
    const brace = key.indexOf('{');
    let name = brace === -1 ? key : key.slice(0, brace);
    if (name.endsWith('_count') || name.endsWith('_sum')) name = name.replace(/_(count|sum)$/, '');
    const lines = byName.get(name) ?? [];
    lines.push(`${key} ${Number.isFinite(value) ? value : 0}`);
    byName.set(name, lines);
  }
  let out = '';
  for (const [name, lines] of byName) {
    const meta = HELP[name];
    if (meta) out += `# HELP ${name} ${meta[1]}\n# TYPE ${name} ${meta[0]}\n`;
    out += `${lines.join('\n')}\n`;
  }
  return out;
}
