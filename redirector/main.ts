// Invariant: `npm run start:redirector` is the production redirector: a node:cluster primary that
// serves nothing itself and REDIRECT_WORKERS workers (default: one per core) that each run one
// uWS app on the same port (SO_REUSEPORT). It needs DATABASE_URL, REDIS_URL and CLICKHOUSE_URL
// (embedded mode is `npm start`), refuses to start on the uWS JS fallback, migrates once in the
// primary, starts a fresh Redis cache epoch for the cluster, and restarts crashed workers. Exit
// code 2: configuration; 3: uWS fallback.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import { RedisInvalidationBus } from '../shared/bus/redis-invalidation-bus.ts';
import { loadConfigOrExit, redirectorSchema, type RedirectorConfig } from '../shared/config/config.ts';
import { connect } from '../shared/db/database.ts';
import { migrate } from '../shared/db/migrate.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { openAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { awaitInit, clusterMetricsClient, servePrimary } from './cluster-messages.ts';
import type { MetricsSnapshot } from './metrics.ts';
import { bumpCacheEpoch } from '../shared/cache/redis-cache-tier.ts';
import { createRedirectorServer } from './redirector-server.ts';
import { nativeUws, UwsFallbackError } from './uws-native.ts';

const EXIT_CONFIG = 2;
const EXIT_UWS_FALLBACK = 3;
const role = cluster.isPrimary ? 'primary' : `worker ${cluster.worker?.id ?? '?'}`;
const log = (m: string): void => void process.stderr.write(`[redirector ${role}] ${m}\n`);

const config: RedirectorConfig = loadConfigOrExit(redirectorSchema);
const missing = (['DATABASE_URL', 'REDIS_URL', 'CLICKHOUSE_URL'] as const).filter((k) => !config[k]);
if (missing.length > 0) {
  log(`start:redirector needs ${missing.join(', ')} (embedded single-process mode is \`npm start\`).`);
  process.exit(EXIT_CONFIG);
}
try {
  nativeUws();
} catch (err) {
  if (!(err instanceof UwsFallbackError)) throw err;
  log(err.message);
  process.exit(EXIT_UWS_FALLBACK);
}

if (cluster.isPrimary) await runPrimary(config);
else await runWorker(config);

async function runPrimary(c: RedirectorConfig): Promise<void> {
  const workers = c.REDIRECT_WORKERS ?? availableParallelism();
  const sql = connect(c.DATABASE_URL!, 1);
  await migrate(sql);
  await sql.end({ timeout: 5 });
  const redis = new Redis(c.REDIS_URL!, { maxRetriesPerRequest: 2 });
  const epoch = await bumpCacheEpoch(redis, c.REDIS_PREFIX);
  redis.disconnect();

  servePrimary(cluster, { t: 'init', epoch, workers });
  let stopping = false;
  const fork = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (code === EXIT_CONFIG || code === EXIT_UWS_FALLBACK) {
      log(`worker ${worker.id} cannot start (exit ${code}); stopping`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      process.exitCode = code;
      return;
    }
    log(`worker ${worker.id} exited (${signal ?? code}); restarting in 1 s`);
    setTimeout(() => {
      if (!stopping) fork();
    }, 1_000);
  });
  for (let i = 0; i < workers; i++) fork();
  log(`${workers} workers on ${c.REDIRECT_HOST}:${c.REDIRECT_PORT}, cache epoch ${epoch}`);

  onShutdown(
    [
      async () => {
        stopping = true;
        const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
        await Promise.all(
          alive.map(
            (w) =>
              new Promise<void>((resolve) => {
                const t = setTimeout(() => {
                  w.process.kill('SIGKILL');
                  resolve();
                }, 15_000);
                w.once('exit', () => {
                  clearTimeout(t);
                  resolve();
                });
                w.process.kill('SIGTERM');
              }),
          ),
        );
      },
    ],
    log,
  );
}

async function runWorker(c: RedirectorConfig): Promise<void> {
  const init = await awaitInit();
  const sql = connect(c.DATABASE_URL!, 4);
  const redis = new Redis(c.REDIS_URL!, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.on('error', () => {}); // reported by the calls that fail
  const bus = new RedisInvalidationBus(redis, c.REDIS_PREFIX);
  const pipeline = await openAnalyticsPipeline(c, { backfill: false, redis, log });
  let snapshot: () => MetricsSnapshot = () => ({});
  const server = await createRedirectorServer({
    sql,
    bus,
    redis,
    config: c,
    hitSink: pipeline.sink,
    cacheEpoch: init.epoch,
    workersHint: init.workers,
    gatherMetrics: clusterMetricsClient(() => snapshot()),
    log,
  });
  snapshot = server.metricsSnapshot;
  onShutdown(
    [
      async () => {
        await bus.close();
        redis.disconnect();
        await sql.end({ timeout: 5 });
      },
      pipeline.close,
      server.close,
    ],
    log,
  );
  log(`listening on ${c.REDIRECT_HOST}:${server.port}`);
}
