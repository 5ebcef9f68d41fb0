// Invariant: `npm run start:ingest` is the production analytics worker: it ensures the ClickHouse
// schema, moves batches the redirectors spooled (Redis stream) into ClickHouse, each with its
// original dedup token, relays the invalidation outbox, delivers webhooks (DeliveryWorker),
// sweeps link expiries into link.expired messages (LinkExpirySweep) and sweeps analytics past
// their retention (at start and hourly), until SIGTERM. It needs
// every server URL; in embedded mode `npm start` runs the whole pipeline (backfill included) in its one
// process instead, because chDB's data directory belongs to exactly one process. It answers
// GET /healthz and /readyz on INGEST_HEALTH_PORT (listening first: 503 until the worker runs, and
// from SIGTERM until it has stopped) and GET /metrics on
// METRICS_PORT (backfill lag, insert failures); it logs JSON (pino, LOG_LEVEL). Wiring only.
import { createAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { ingestSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { startDeliveryWorker } from '../shared/webhooks/delivery-worker.ts';
import { startLinkExpirySweep } from '../shared/links/link-expiry.ts';
import { startRetentionSchedule } from '../shared/analytics/store/retention-schedule.ts';
import { startHealthServer } from '../shared/runtime/health-server.ts';
import { Readiness } from '../shared/runtime/readiness.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startMetricsServer } from '../shared/runtime/metrics-server.ts';
import { listenError } from '../shared/runtime/listen-failure.ts';
import { allSpools } from '../shared/runtime/open-analytics.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';

const REPORT_INTERVAL_MS = 30_000;
const say = (m: string): void => void process.stderr.write(`[ingest] ${m}\n`);
const config = loadConfigOrExit(ingestSchema);
const logger = createLogger('ingest', config.LOG_LEVEL);
const metrics = createProcessMetrics();
// Listening first, so /readyz says 503 (starting) until the worker runs.
const readiness = new Readiness();
const health = await startOrExit(
  () =>
    startHealthServer(config.INGEST_HEALTH_PORT, config.INGEST_HEALTH_HOST, readiness).catch((err: NodeJS.ErrnoException) => {
      throw listenError(
        { portSetting: 'INGEST_HEALTH_PORT', hostSetting: 'INGEST_HEALTH_HOST', port: config.INGEST_HEALTH_PORT, host: config.INGEST_HEALTH_HOST },
        err.code,
      );
    }),
  say,
);
onStartupFailure(health.close);
const backends = await startOrExit(() => openBackends(config, { requireServersFor: 'start:ingest', requireAnalyticsAtStart: true, poolSize: 4, logger }), say);
onStartupFailure(backends.close);
await backends.startOutboxRelay();
const analytics = await startOrExit(() => backends.analytics(), say);
const pipeline = createAnalyticsPipeline({ ...analytics, backfill: allSpools(analytics), logger });
metrics.watchPipeline(pipeline);
const webhooks = startDeliveryWorker(backends.db.sql, analytics.store, config, logger);
const linkExpiry = startLinkExpirySweep(backends.db.sql, config, backends.linkClicks, logger);
const retention = startRetentionSchedule(backends.db.sql, analytics.store, config, logger);
metrics.watchWebhooks(webhooks);

const report = setInterval(() => {
  for (const worker of pipeline.backfill) {
    void worker.spool.size().then(
      (pending) => {
        const m = worker.metrics();
        if (pending > 0 || m.failedAttempts > 0)
          logger.info({ spool: worker.spool.description, pending, backfilledEvents: m.insertedEvents, backoffMs: m.currentBackoffMs }, 'backfill progress');
      },
      () => undefined,
    );
  }
}, REPORT_INTERVAL_MS);
report.unref();
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
onShutdown(
  [health.close, backends.close, () => webhooks.stop(), () => linkExpiry.stop(), () => retention.stop(), pipeline.close, metricsServer.close],
  logger,
  { readiness },
);
readiness.markReady();
logger.info(`health on ${config.INGEST_HEALTH_HOST}:${health.port}/healthz`);
logger.info('backfill worker running');
