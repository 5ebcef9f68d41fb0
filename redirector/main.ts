// Invariant: `npm run start:redirector` is the production redirector: a node:cluster primary that
// serves nothing itself and REDIRECT_WORKERS workers (default: one per core) that each run one
// uWS app on the same port (SO_REUSEPORT). It needs DATABASE_URL, REDIS_URL and CLICKHOUSE_URL
// (embedded mode is `npm start`), refuses to start on the uWS JS fallback, migrates once in the
// primary, relays the outbox from the primary, and restarts
// crashed workers. SIGHUP restarts the workers one by one (a new one listens before the old one
// drains), so no request goes unanswered. SIGTERM drains every worker (SHUTDOWN_GRACE_MS) and
// flushes its events; a second signal changes nothing. The primary alone serves GET /metrics on
// METRICS_PORT: its own registry plus every worker's, added up at each scrape. Logs are JSON
// (pino, LOG_LEVEL); the primary's first line names the uWS build it loaded; a failure to start
// is one plain line. This file is wiring only. Exit code 2: configuration; 3: uWS fallback.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { createAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { loadConfigOrExit, redirectorSchema, type RedirectorConfig } from '../shared/config/config.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startMetricsServer, type MetricsText } from '../shared/runtime/metrics-server.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { aggregateMetrics, createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { Readiness } from '../shared/runtime/readiness.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { EXIT_CONFIG, onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';
import { announceReady, answerMetricsCollections, awaitInit, servePrimary, workerReady } from './cluster-messages.ts';
import { createRedirectorServer } from './create-redirector.ts';
import { UwsFallbackError, uwsBuild } from './uws-native.ts';

const EXIT_UWS_FALLBACK = 3;
/** Beyond the drain: time for a worker to flush its events before it is killed. */
const WORKER_FLUSH_MARGIN_MS = 15_000;
const WORKER_READY_TIMEOUT_MS = 30_000;
const role = cluster.isPrimary ? 'primary' : `worker ${cluster.worker?.id ?? '?'}`;
const say = (m: string): void => void process.stderr.write(`[redirector ${role}] ${m}\n`);
const entry = 'start:redirector';

const config: RedirectorConfig = loadConfigOrExit(redirectorSchema);
const logger = createLogger('redirector', config.LOG_LEVEL).child({ role });
const metrics = createProcessMetrics();
try {
  const build = uwsBuild();
  if (cluster.isPrimary) logger.info(build.description);
} catch (err) {
  if (!(err instanceof UwsFallbackError)) throw err;
  say(err.message);
  process.exit(EXIT_UWS_FALLBACK);
}

if (cluster.isPrimary) await runPrimary(config);
else await runWorker(config);

async function runPrimary(c: RedirectorConfig): Promise<void> {
  const workers = c.REDIRECT_WORKERS ?? availableParallelism();
  const backends = await startOrExit(() => openBackends(c, { requireServersFor: entry, poolSize: 1, logger }), say);
  await backends.startOutboxRelay();

  const gatherWorkers = servePrimary(cluster, { t: 'init', workers });
  const render = async (): Promise<MetricsText> => aggregateMetrics([await metrics.registry.getMetricsAsJSON(), ...(await gatherWorkers())]);
  const metricsServer = await startOrExit(
    () => startMetricsServer({ port: c.METRICS_PORT, host: c.METRICS_HOST, render, onError: (err) => logger.error({ err }, 'metrics'), log: logger }),
    say,
  );
  let stopping = false;
  let rolling = false;
  const retiring = new Set<number>();
  const stopDeadlineMs = c.SHUTDOWN_GRACE_MS + WORKER_FLUSH_MARGIN_MS;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping || retiring.delete(worker.id)) return;
    if (code === EXIT_CONFIG || code === EXIT_UWS_FALLBACK) {
      logger.info(`worker ${worker.id} cannot start (exit ${code}); stopping`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      process.exitCode = code;
      void backends.close();
      return;
    }
    logger.info(`worker ${worker.id} exited (${signal ?? code}); restarting in 1 s`);
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, 1_000);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  logger.info(`${workers} workers on ${c.REDIRECT_HOST}:${c.REDIRECT_PORT}`);

  const alive = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  // Rolling restart: each worker is replaced by a fresh one that listens (SO_REUSEPORT) before
  // the old one drains, so the port never lacks a listener.
  process.on('SIGHUP', () => {
    if (rolling || stopping) return logger.info('SIGHUP: a restart or shutdown is already under way');
    rolling = true;
    logger.info('SIGHUP: restarting workers one by one');
    void (async () => {
      for (const old of alive()) {
        if (stopping) break;
        const fresh = cluster.fork();
        if (!(await workerReady(fresh, WORKER_READY_TIMEOUT_MS))) {
          logger.info(`worker ${fresh.id} did not become ready; keeping worker ${old.id}`);
          break;
        }
        retiring.add(old.id);
        await stopWorker(old, stopDeadlineMs);
      }
      rolling = false;
      logger.info('rolling restart done');
    })();
  });

  const stopWorkers = async (): Promise<void> => {
    stopping = true;
    await Promise.all(alive().map((w) => stopWorker(w, stopDeadlineMs)));
  };
  onShutdown([backends.close, stopWorkers, metricsServer.close], logger);
}

function stopWorker(w: Worker, deadlineMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = setTimeout(() => {
      w.process.kill('SIGKILL');
      resolve();
    }, deadlineMs);
    w.once('exit', () => {
      clearTimeout(deadline);
      resolve();
    });
    w.process.kill('SIGTERM');
  });
}

async function runWorker(c: RedirectorConfig): Promise<void> {
  const init = await awaitInit();
  const readiness = new Readiness();
  const backends = await startOrExit(() => openBackends(c, { requireServersFor: entry, poolSize: 4, logger }), say);
  onStartupFailure(backends.close);
  const analytics = await backends.analytics();
  // The worker backfills its own disk spool (batches Redis refused); ingest backfills the stream.
  // Nothing of a click goes to Postgres: analytics.events messages are composed from the store.
  const pipeline = createAnalyticsPipeline({ ...analytics, backfill: [analytics.spool], logger });
  metrics.watchPipeline(pipeline);
  answerMetricsCollections(() => metrics.registry.getMetricsAsJSON());
  const server = await startOrExit(
    async () =>
      createRedirectorServer({
        sql: backends.db.sql,
        bus: backends.bus,
        cacheTier: backends.cacheTier,
        clickCounter: backends.clickCounter,
        linkClicks: backends.linkClicks,
        rateLimiter: backends.rateLimiter,
        usageStore: backends.usageStore,
        hitSink: pipeline.sink,
        config: c,
        fleet: { registry: backends.workerRegistry, hostWorkers: init.workers },
        readiness,
        metricsRegistry: metrics.registry,
        logger,
      }),
    say,
  );
  onShutdown([backends.close, pipeline.close, server.close], logger, { readiness });
  readiness.markReady();
  announceReady();
  logger.info(`listening on ${c.REDIRECT_HOST}:${server.port}`);
}
