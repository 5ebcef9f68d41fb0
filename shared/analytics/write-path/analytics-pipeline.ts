// Invariant: the analytics pipeline of a process is assembled here, once, from config: the store
// is chDB under DATA_DIR/analytics unless CLICKHOUSE_URL is set, and the spool is a Redis stream
// when REDIS_URL is set, else segment files under DATA_DIR/analytics-spool. The process that
// opens an embedded pipeline is the only one that may (chDB binds its data path to one process):
// in embedded mode, other processes (e.g. redirector cluster workers) must hand their hits to it.
// close() stops intake first and the store last: buffer → backfill worker → spool → store.
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { AnalyticsStore, DEFAULT_SYNC_SETTLE_MILLIS } from '../store/analytics-store.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import { HttpClickHouseTransport } from '../clickhouse/http-clickhouse-transport.ts';
import type { CommonConfig } from '../../config/config.ts';
import { BackfillWorker } from './backfill-worker.ts';
import type { EventSpool } from './event-spool.ts';
import { EventWriteBuffer, type EventWriteBufferOptions } from './event-write-buffer.ts';
import { FileSpool } from './file-spool.ts';
import { RedisStreamSpool } from './redis-stream-spool.ts';

export interface AnalyticsPipelineOptions {
  /** Sync settling margin (ms); default 2000. */
  syncSettleMillis?: number;
  /** Run the backfill worker in this process (default true). */
  backfill?: boolean;
  /** Reuse an open Redis client for the spool (borrowed, never closed). */
  redis?: Redis | null;
  buffer?: Pick<EventWriteBufferOptions, 'maxBatch' | 'flushIntervalMs' | 'maxQueuedEvents' | 'insertTimeoutMs' | 'storeCooldownMs'>;
  log?: (message: string) => void;
}

export interface AnalyticsPipeline {
  /** Reads (browse/sync/export) and writes. */
  store: AnalyticsStore;
  /** The HitSink to give the redirector. */
  sink: EventWriteBuffer;
  spool: EventSpool;
  backfill: BackfillWorker | null;
  close(): Promise<void>;
}

export async function openAnalyticsPipeline(
  config: Pick<CommonConfig, 'DATA_DIR' | 'CLICKHOUSE_URL' | 'REDIS_URL' | 'REDIS_PREFIX'>,
  options: AnalyticsPipelineOptions = {},
): Promise<AnalyticsPipeline> {
  const log = options.log ?? ((m: string) => process.stderr.write(`[analytics] ${m}\n`));
  const storeOptions = { syncSettleMillis: options.syncSettleMillis ?? DEFAULT_SYNC_SETTLE_MILLIS };
  let schemaRetry: NodeJS.Timeout | null = null;
  let store: AnalyticsStore;
  if (config.CLICKHOUSE_URL) {
    // A ClickHouse server that is down at start must not stop this process (redirects go on,
    // events are spooled): the schema is ensured in the background until the server answers.
    const httpStore = new AnalyticsStore(new HttpClickHouseTransport({ url: config.CLICKHOUSE_URL }), storeOptions);
    store = httpStore;
    const ensure = (): void => {
      httpStore.ensureSchema().then(
        () => {
          schemaRetry = null;
        },
        (err: unknown) => {
          log(`ClickHouse schema not ensured yet (${err instanceof Error ? err.message : String(err)}); retrying in 2 s`);
          schemaRetry = setTimeout(ensure, 2000);
          schemaRetry.unref();
        },
      );
    };
    try {
      await httpStore.ensureSchema();
    } catch {
      ensure();
    }
  } else {
    store = await AnalyticsStore.openEmbedded(join(config.DATA_DIR, 'analytics'), storeOptions);
  }
  let spool: EventSpool;
  try {
    const redis = options.redis ?? config.REDIS_URL;
    spool = redis ? new RedisStreamSpool({ prefix: config.REDIS_PREFIX, redis }) : await FileSpool.open(join(config.DATA_DIR, 'analytics-spool'));
  } catch (err) {
    await store.close();
    throw err;
  }
  let lastLog = 0;
  const onError = (err: unknown, context: string): void => {
    const now = Date.now();
    if (now - lastLog < 5000) return; // an outage fails every batch: one line per 5 s is enough
    lastLog = now;
    log(`${context} failed: ${err instanceof Error ? err.message : String(err)}`);
  };
  const backfill = options.backfill === false ? null : new BackfillWorker({ spool, store, onError: (e) => onError(e, 'backfill') });
  const sink = new EventWriteBuffer({
    ...options.buffer,
    store,
    enricher: new HitEnricher(),
    spool,
    onSpooled: () => backfill?.kick(),
    onError,
  });
  backfill?.start();
  log(`store ${store.transport.description}, spool ${spool.description}`);
  return {
    store,
    sink,
    spool,
    backfill,
    close: async () => {
      if (schemaRetry) clearTimeout(schemaRetry);
      const m = await sink.close();
      if (m.droppedEvents > 0) log(`dropped ${m.droppedEvents} events (queue bound or spool failure)`);
      await backfill?.stop();
      await spool.close();
      await store.close();
    },
  };
}
