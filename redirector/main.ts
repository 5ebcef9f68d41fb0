// Invariant: `npm run start:redirector` is the production redirector: a node:cluster primary that
// serves nothing itself and REDIRECT_WORKERS workers (default: one per core) that each run one
// uWS app on the same port (SO_REUSEPORT). It needs DATABASE_URL, REDIS_URL and CLICKHOUSE_URL
// (embedded mode is `npm start`), refuses to start on the uWS JS fallback, migrates and starts a
// fresh Redis cache epoch once in the primary, relays the outbox from the primary, and restarts
// crashed workers. This file is wiring only. Exit code 2: configuration; 3: uWS fallback.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { createAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { loadConfigOrExit, redirectorSchema, type RedirectorConfig } from '../shared/config/config.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { EXIT_CONFIG, startOrExit } from '../shared/runtime/startup.ts';
import { awaitInit, clusterMetricsClient, servePrimary } from './cluster-messages.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { nativeUws, UwsFallbackError } from './uws-native.ts';

const EXIT_UWS_FALLBACK = 3;
const WORKER_STOP_DEADLINE_MS = 15_000;
const role = cluster.isPrimary ? 'primary' : `worker ${cluster.worker?.id ?? '?'}`;
const log = (m: string): void => void process.stderr.write(`[redirector ${role}] ${m}\n`);
const entry = 'start:redirector';

const config: RedirectorConfig = loadConfigOrExit(redirectorSchema);
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
  const backends = await startOrExit(() => openBackends(c, { requireServersFor: entry, poolSize: 1, log }), log);
  const epoch = (await backends.startCacheEpoch()) ?? '0';
  await backends.startOutboxRelay();

  servePrimary(cluster, { t: 'init', epoch, workers });
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (code === EXIT_CONFIG || code === EXIT_UWS_FALLBACK) {
      log(`worker ${worker.id} cannot start (exit ${code}); stopping`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      process.exitCode = code;
      void backends.close();
      return;
    }
    log(`worker ${worker.id} exited (${signal ?? code}); restarting in 1 s`);
    setTimeout(() => {
      if (!stopping) cluster.fork();
    }, 1_000);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  log(`${workers} workers on ${c.REDIRECT_HOST}:${c.REDIRECT_PORT}, cache epoch ${epoch}`);

  const stopWorkers = async (): Promise<void> => {
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(alive.map(stopWorker));
  };
  onShutdown([backends.close, stopWorkers], log);
}

function stopWorker(w: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = setTimeout(() => {
      w.process.kill('SIGKILL');
      resolve();
    }, WORKER_STOP_DEADLINE_MS);
    w.once('exit', () => {
      clearTimeout(deadline);
      resolve();
    });
    w.process.kill('SIGTERM');
  });
}

async function runWorker(c: RedirectorConfig): Promise<void> {
  const init = await awaitInit();
  const backends = await startOrExit(() => openBackends(c, { requireServersFor: entry, poolSize: 4, log }), log);
  const pipeline = createAnalyticsPipeline({ ...(await backends.analytics()), backfill: false, log });
  let server: RedirectorServer | null = null;
  server = await startOrExit(
    async () =>
      createRedirectorServer({
        sql: backends.db.sql,
        bus: backends.bus,
        cacheTier: await backends.cacheTier(init.epoch),
        clickCounter: backends.clickCounter,
        usageStore: backends.usageStore,
        hitSink: pipeline.sink,
        config: c,
        workersHint: init.workers,
        gatherMetrics: clusterMetricsClient(() => server?.metricsSnapshot() ?? {}),
        log,
      }),
    log,
  );
  onShutdown([backends.close, pipeline.close, server.close], log);
  log(`listening on ${c.REDIRECT_HOST}:${server.port}`);
}
