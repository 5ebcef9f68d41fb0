// Invariant: the production API process (`npm run start:api`), wiring only: config parsed once,
// every server URL required, the ports from the composition root, this process's outbox relay,
// its Prometheus endpoint on METRICS_PORT, /readyz (Postgres answers; 503 from SIGTERM), JSON logs (pino, LOG_LEVEL) with a request id on every
// request's lines, and a clean shutdown on SIGTERM (servers first, backends last). A failure to
// start is one human-readable line (startup.ts), not JSON.
import { apiSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startMetricsServer } from '../shared/runtime/metrics-server.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { postgresCheck, Readiness } from '../shared/runtime/readiness.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';
import { startApi } from './start-api.ts';

const config = loadConfigOrExit(apiSchema);
const say = (m: string): void => void process.stderr.write(`[api] ${m}\n`);
const logger = createLogger('api', config.LOG_LEVEL);
const metrics = createProcessMetrics();
const backends = await startOrExit(() => openBackends(config, { requireServersFor: 'start:api', logger }), say);
onStartupFailure(backends.close);
await backends.startOutboxRelay();
const readiness = new Readiness([postgresCheck(backends.db.sql)]);
const api = await startOrExit(() => startApi(backends, config, { logger, telemetry: metrics.telemetry, readiness }), say);
const metricsServer = await startOrExit(
  () =>
    startMetricsServer({
      port: config.METRICS_PORT,
      host: config.METRICS_HOST,
      render: metrics.render,
      onError: (err) => logger.error({ err }, 'metrics'),
      log: logger,
    }),
  say,
);
logger.info(`listening on ${config.API_HOST}:${api.port}`);
onShutdown([backends.close, api.close, metricsServer.close], logger, { readiness });
readiness.markReady();
