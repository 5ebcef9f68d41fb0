// Invariant: one prom-client Registry per process, made here and nowhere else: Node's default
// process metrics, the Telemetry port's counters, and the analytics write path's numbers. The
// write path is not instrumented with prom-client: its own plain counters (write buffer, spools,
// backfill workers) are read by collect() callbacks at scrape time, so recording costs what it
// did before. A collect() never blocks a scrape for long: a spool that does not answer its size
// within SPOOL_SIZE_TIMEOUT_MS reports the last size it gave; the backfill lag is what the
// backfill workers last saw at their spool's head, so it costs no read at all. Snapshots of several processes
// (a cluster's workers) are added up by aggregateMetrics, each metric by its `aggregator`.
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Aggregator } from 'prom-client';
import type { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import type { AnalyticsPipeline } from '../analytics/write-path/analytics-pipeline.ts';
import type { MetricsText } from './metrics-server.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

/** A registry's metrics as plain JSON (what cluster workers send their primary). */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

const SPOOL_SIZE_TIMEOUT_MS = 1_000;

export interface ProcessMetrics {
  registry: Registry;
  telemetry: Telemetry;
  /** Exposes the pipeline's insert, spool, drop and backfill numbers, read at scrape time. */
  watchPipeline(pipeline: AnalyticsPipeline): void;
  /** Exposes the webhook delivery worker's counts and its delivery lag. */
  watchWebhooks(worker: DeliveryWorker): void;
  render(): Promise<MetricsText>;
}

type Labels = Record<string, string>;
type Read = () => number | Iterable<readonly [Labels, number]> | Promise<number | Iterable<readonly [Labels, number]>>;

interface ReadOptions {
  labelNames?: readonly string[];
  aggregator?: Aggregator;
}

function set(values: number | Iterable<readonly [Labels, number]>, put: (labels: Labels, v: number) => void): void {
  if (typeof values === 'number') put({}, values);
  else for (const [labels, v] of values) put(labels, v);
}

/**
 * A counter or gauge whose value is read from `read` at each scrape (a plain number kept
 * elsewhere). A counter never reports a negative or non-finite value (0 instead); a gauge reports
 * a non-finite one as 0.
 */
export function readMetric(registry: Registry, type: 'counter' | 'gauge', name: string, help: string, read: Read, o: ReadOptions = {}): void {
  const common = { name, help, labelNames: o.labelNames ?? [], registers: [registry], ...(o.aggregator ? { aggregator: o.aggregator } : {}) };
  if (type === 'counter') {
    new Counter({
      ...common,
      async collect() {
        const values = await read();
        this.reset();
        set(values, (labels, v) => this.inc(labels, Number.isFinite(v) && v > 0 ? v : 0));
      },
    });
  } else {
    new Gauge({
      ...common,
      async collect() {
        const values = await read();
        this.reset();
        set(values, (labels, v) => this.set(labels, Number.isFinite(v) ? v : 0));
      },
    });
  }
}

export function createProcessMetrics(): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const rateLimited = new Counter({
    name: 'shortlink_rate_limit_rejections_total',
    help: 'Requests refused by a rate limiter (429), by scope.',
    labelNames: ['scope'],
    registers: [registry],
  });
  const previews = new Counter({
    name: 'shortlink_preview_fetches_total',
    help: 'Destination preview refreshes, by outcome (changed, unchanged, fresh = skipped, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const telemetry: Telemetry = {
    rateLimitRejected: (scope) => rateLimited.inc({ scope }),
    previewFetched: (outcome) => previews.inc({ outcome }),
  };
  let watched: AnalyticsPipeline | null = null;
  return {
    registry,
    telemetry,
    watchPipeline(pipeline) {
      if (watched) throw new Error('a process has one analytics pipeline');
      watched = pipeline;
      watchPipeline(registry, pipeline);
    },
    watchWebhooks(worker) {
      watchWebhooks(registry, worker);
    },
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

function watchWebhooks(registry: Registry, w: DeliveryWorker): void {
  readMetric(
    registry,
    'gauge',
    'shortlink_webhook_messages_pending',
    'Webhook messages waiting to be delivered (due or retrying), all endpoints.',
    () => w.metrics().pending,
  );
  readMetric(
    registry,
    'gauge',
    'shortlink_webhook_endpoints_failing_for_1h',
    'Enabled webhook endpoints with a message still retrying and no delivery since a failed attempt over an hour ago.',
    () => w.metrics().endpointsFailingForAnHour,
  );
  readMetric(registry, 'counter', 'shortlink_webhook_delivered_total', 'Webhook messages delivered (a 2xx answer).', () => w.metrics().delivered);
  readMetric(
    registry,
    'counter',
    'shortlink_webhook_failed_attempts_total',
    'Webhook attempts that did not deliver (no answer, 3xx, 4xx, 5xx).',
    () => w.metrics().failedAttempts,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_webhook_retried_total',
    'Webhook messages scheduled for another attempt after a failed one.',
    () => w.metrics().retried,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_webhook_failed_total',
    'Webhook messages given up on (retry schedule spent) or dropped by a 410.',
    () => w.metrics().failed,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_webhook_analytics_messages_total',
    'analytics.events messages composed from the analytics store.',
    () => w.metrics().analyticsMessages,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_webhook_analytics_events_total',
    'Events carried by the analytics.events messages composed (each once, however often its message is sent).',
    () => w.metrics().analyticsEvents,
  );
  const lag = new Histogram({
    name: 'shortlink_webhook_delivery_lag_seconds',
    help: 'From a webhook message being queued (or replayed) to its delivery.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000],
    registers: [registry],
  });
  w.onDelivered = (seconds) => lag.observe(seconds);
}

function watchPipeline(registry: Registry, p: AnalyticsPipeline): void {
  const buf = (): ReturnType<AnalyticsPipeline['sink']['metrics']> => p.sink.metrics();
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_events_inserted_total',
    'Analytics events the write buffer inserted into the store.',
    () => buf().flushedEvents,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_insert_failures_total',
    'Batch inserts into the analytics store that failed or timed out (the batch went to the spool).',
    () => buf().failedInserts,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_spooled_batches_total',
    'Batches written to a spool because the store refused them.',
    () => buf().spooledBatches,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_spooled_events_total',
    'Events written to a spool because the store refused them.',
    () => buf().spooledEvents,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_spilled_events_total',
    'Of the spooled events, those spooled because the store answered slower than they came.',
    () => buf().spilledEvents,
  );
  readMetric(registry, 'counter', 'shortlink_analytics_spooled_bytes_total', 'Encoded bytes written to the spools.', () => p.spool.appendedBytes ?? 0);
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_spool_write_failures_total',
    'Spool writes that failed (the batch stays in memory and is retried).',
    () => buf().failedSpoolWrites,
  );
  readMetric(
    registry,
    'counter',
    'shortlink_analytics_events_dropped_total',
    'Analytics events lost, by reason (queue_full, closed, unsaved_at_close).',
    () => Object.entries(buf().droppedByReason).map(([reason, n]) => [{ reason }, n] as const),
    {
      labelNames: ['reason'],
    },
  );
  readMetric(
    registry,
    'gauge',
    'shortlink_analytics_queue_depth',
    'Analytics events held in memory (queued, in flight, or refused by both store and spool).',
    () => buf().queueDepth,
  );
  readMetric(registry, 'counter', 'shortlink_backfill_inserted_events_total', 'Spooled events the backfill workers moved into the store.', () =>
    p.backfill.reduce((n, b) => n + b.metrics().insertedEvents, 0),
  );
  readMetric(registry, 'counter', 'shortlink_backfill_failed_attempts_total', 'Backfill inserts that failed (the store is still refusing).', () =>
    p.backfill.reduce((n, b) => n + b.metrics().failedAttempts, 0),
  );
  readMetric(
    registry,
    'gauge',
    'shortlink_backfill_lag_seconds',
    "Age of the oldest event waiting in a spool this process backfills, by spool, as of the backfill worker's last look (0 when it found the spool empty).",
    () =>
      p.backfill.map((b) => {
        const oldest = b.metrics().oldestPendingEventMs;
        return [{ spool: b.spool.description }, oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000)] as const;
      }),
    { labelNames: ['spool'], aggregator: 'max' },
  );
  const lastSize = new Map<string, number>();
  readMetric(
    registry,
    'gauge',
    'shortlink_backfill_pending_batches',
    'Spooled batches waiting for the backfill worker of this process, by spool: the backfill lag.',
    async () =>
      Promise.all(
        p.backfill.map(async (b) => {
          const key = b.spool.description;
          const size = await withTimeout(b.spool.size(), SPOOL_SIZE_TIMEOUT_MS).catch(() => null);
          if (size !== null) lastSize.set(key, size);
          return [{ spool: key }, lastSize.get(key) ?? 0] as const;
        }),
      ),
    { labelNames: ['spool'] },
  );
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve(null), ms);
    t.unref();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(t);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** The Prometheus text of several processes' metrics added up (counters summed, gauges by their aggregator). */
export async function aggregateMetrics(snapshots: readonly MetricsJson[]): Promise<MetricsText> {
  const merged = AggregatorRegistry.aggregate([...snapshots]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
