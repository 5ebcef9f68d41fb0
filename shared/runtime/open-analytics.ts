// Invariant: the analytics store is the ClickHouse server at `url` over HTTP (one node, or a node of
// the cluster CLICKHOUSE_CLUSTER names, whose tables it then creates ON CLUSTER), else chDB under
// DATA_DIR/analytics (which only one process may open, so it is opened on demand, by the process
// that asks). A server that is down at start stops nothing (redirects go on, events are spooled):
// its schema is ensured in the background until it answers, unless the entry requires it at
// start (ingest), then a SetupError names CLICKHOUSE_URL. Batches the store refuses go to the
// shared Redis stream and, while Redis refuses them too, to this process's own disk spool
// (DATA_DIR/fallback-spool/slot-N, claimed here and adopted from a crashed process); without Redis
// to files under DATA_DIR/analytics-spool. The drivers load only here, on the first call.
import { join } from 'node:path';
import type { ClusterOptions } from '../analytics/clickhouse/cluster-layout.ts';
import { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import type { EventSpool } from '../analytics/write-path/event-spool.ts';
import { FallbackSpool } from '../analytics/write-path/fallback-spool.ts';
import { FileSpool } from '../analytics/write-path/file-spool.ts';
import { RedisStreamSpool } from '../analytics/write-path/redis-stream-spool.ts';
import { claimSpoolDirectory } from '../analytics/write-path/spool-directory.ts';
import type { Logger } from '../log/logger.ts';
import type { RedisClient } from '../redis/redis-client.ts';
import { assertEmbeddedPackages } from './embedded-packages.ts';
import { SERVER_CHECK_MS, serverUnreachable, SetupError } from './startup.ts';
import type { VisitorSaltStore } from '../analytics/enrichment/visitor-salts.ts';
import { MemoryVisitorSalts } from '../analytics/enrichment/memory-visitor-salts.ts';
import { RedisVisitorSalts } from '../analytics/enrichment/redis-visitor-salts.ts';
import { PING_SQL } from '../analytics/clickhouse/clickhouse-sql.ts';

export interface AnalyticsBackends {
  store: AnalyticsStore;
  /**
   * Where batches the store refused wait: the shared Redis stream, else this process's disk spool
   * (with Redis); the disk spool alone without Redis. Its reads are the disk spool's, which this
   * process backfills.
   */
  spool: EventSpool;
  /** The shared Redis stream that the ingest process backfills; null without Redis. */
  sharedSpool: EventSpool | null;
  /** The visitor hash's daily salts: in Redis (the fleet's, 48 h TTL), else this process's memory. */
  visitorSalts: VisitorSaltStore;
}

/** Every spool a process that backfills everything (ingest, or `npm start`) drains: its own and the shared one. */
export function allSpools(a: AnalyticsBackends): EventSpool[] {
  return a.sharedSpool ? [a.spool, a.sharedSpool] : [a.spool];
}

export interface OpenAnalyticsOptions {
  /** CLICKHOUSE_URL; undefined: chDB under dataDir. */
  url: string | undefined;
  /** CLICKHOUSE_CLUSTER and CLICKHOUSE_INSERT_QUORUM (with url only); null: one node. */
  cluster: ClusterOptions | null;
  dataDir: string;
  syncSettleMillis: number;
  redis: RedisClient | null;
  prefix: string;
  /** The store must answer at start (ingest, whose whole job it is). */
  requiredAtStart: boolean;
  logger: Logger;
}

export interface OpenedAnalytics {
  backends: AnalyticsBackends;
  /** Stops the background schema retries, closes the spool and the store, and releases the claimed spool slot. */
  close(): Promise<void>;
}

const SCHEMA_RETRY_MS = 2_000;

/** Resolves `work` or rejects with `timeout` after `ms`. */
function within<T>(work: Promise<T>, ms: number, timeout: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(timeout)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function openAnalytics(o: OpenAnalyticsOptions): Promise<OpenedAnalytics> {
  let schemaRetry: NodeJS.Timeout | null = null;
  const store = o.url ? await openHttpStore(o, (t) => (schemaRetry = t)) : await openChdbStore(o);
  let releaseSpool: (() => void) | null = null;
  let spools: Pick<AnalyticsBackends, 'spool' | 'sharedSpool'>;
  try {
    if (!o.redis) spools = { spool: await FileSpool.open(join(o.dataDir, 'analytics-spool')), sharedSpool: null };
    else {
      // Each process on a host claims its own disk spool (a crashed one's is adopted on restart).
      const claimed = claimSpoolDirectory(join(o.dataDir, 'fallback-spool'));
      releaseSpool = claimed.release;
      const shared = new RedisStreamSpool({ prefix: o.prefix, redis: o.redis });
      const spool = new FallbackSpool({
        primary: shared,
        fallback: await FileSpool.open(claimed.dir),
        onSwitch: (toDisk, cause) =>
          toDisk ? o.logger.warn({ err: cause }, `Redis refused a spooled batch; spooling to ${claimed.dir}`) : o.logger.info('spooling to Redis again'),
      });
      spools = { spool, sharedSpool: shared };
    }
  } catch (err) {
    if (schemaRetry) clearTimeout(schemaRetry);
    await store.close();
    throw err;
  }
  const visitorSalts = o.redis ? new RedisVisitorSalts(o.redis, o.prefix) : new MemoryVisitorSalts();
  const backends: AnalyticsBackends = { store, ...spools, visitorSalts };
  return {
    backends,
    close: async () => {
      if (schemaRetry) clearTimeout(schemaRetry);
      await backends.spool.close();
      await backends.store.close();
      releaseSpool?.();
    },
  };
}

function reportTuning(logger: Logger, r: { tuned: boolean; error?: unknown }): void {
  if (!r.tuned)
    logger.warn(
      { err: r.error },
      "the analytics tables keep the server's defaults (the events table's merge settings or the rollup's day projection); reads stay correct",
    );
}

async function openHttpStore(o: OpenAnalyticsOptions, onRetry: (timer: NodeJS.Timeout | null) => void): Promise<AnalyticsStore> {
  const url = o.url ?? '';
  const { HttpClickHouseTransport } = await import('../analytics/clickhouse/http-clickhouse-transport.ts');
  const http = new AnalyticsStore(new HttpClickHouseTransport({ url }), { syncSettleMillis: o.syncSettleMillis, cluster: o.cluster });
  const ensure = (): void => {
    http.ensureSchema().then(
      (r) => {
        onRetry(null);
        reportTuning(o.logger, r);
      },
      (err: unknown) => {
        o.logger.warn({ err }, `ClickHouse schema not ensured yet; retrying in ${SCHEMA_RETRY_MS / 1000} s`);
        const timer = setTimeout(ensure, SCHEMA_RETRY_MS);
        timer.unref();
        onRetry(timer);
      },
    );
  };
  if (o.requiredAtStart) {
    try {
      reportTuning(o.logger, await ensureSchemaAtStart(http, url));
    } catch (err) {
      await http.close();
      throw err;
    }
    return http;
  }
  try {
    reportTuning(o.logger, await http.ensureSchema());
  } catch {
    ensure();
  }
  return http;
}

/**
 * The schema of a store that must answer now: a SetupError names CLICKHOUSE_URL when the server
 * does not answer within SERVER_CHECK_MS, or CLICKHOUSE_CLUSTER when a cluster refuses its DDL.
 * A cluster answers DDL once every node ran it, so there the deadline is on its first answer.
 */
async function ensureSchemaAtStart(store: AnalyticsStore, url: string): Promise<{ tuned: boolean; error?: unknown }> {
  const late = `no answer within ${SERVER_CHECK_MS / 1000} s`;
  try {
    if (!store.cluster) return await within(store.ensureSchema(), SERVER_CHECK_MS, late);
    await within(store.transport.queryRows(PING_SQL, {}), SERVER_CHECK_MS, late);
  } catch (err) {
    throw serverUnreachable('CLICKHOUSE_URL', url, err);
  }
  try {
    return await store.ensureSchema();
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new SetupError(
      `CLICKHOUSE_CLUSTER ${store.cluster.name}: the analytics tables were not created ON CLUSTER (${reason}); check CLICKHOUSE_CLUSTER and the servers' remote_servers and {shard}/{replica} macros`,
    );
  }
}

/**
 * A deploy step (`migrate clickhouse`): creates the analytics tables at `url` (ON CLUSTER on a
 * cluster) and closes the store; the processes count older events into the rollup themselves.
 */
export async function createAnalyticsSchema(o: { url: string; cluster: ClusterOptions | null; logger: Logger }): Promise<void> {
  const { HttpClickHouseTransport } = await import('../analytics/clickhouse/http-clickhouse-transport.ts');
  const store = new AnalyticsStore(new HttpClickHouseTransport({ url: o.url }), { cluster: o.cluster });
  try {
    reportTuning(o.logger, await ensureSchemaAtStart(store, o.url));
  } finally {
    await store.close();
  }
}

async function openChdbStore(o: OpenAnalyticsOptions): Promise<AnalyticsStore> {
  assertEmbeddedPackages(['chdb']);
  const { ChdbTransport } = await import('../analytics/clickhouse/chdb-transport.ts');
  const store = new AnalyticsStore(new ChdbTransport(join(o.dataDir, 'analytics')), { syncSettleMillis: o.syncSettleMillis });
  reportTuning(o.logger, await store.ensureSchema());
  return store;
}
