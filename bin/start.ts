// Invariant: `npm start` runs the whole service in this one process: the API on API_PORT, the
// redirector on REDIRECT_PORT, the dashboard on DASHBOARD_PORT (its pages rebuilt first when their sources changed), the analytics pipeline (backfill included), the outbox relay and the webhook delivery worker,
// over the backends the composition root chose (embedded under DATA_DIR unless server URLs are
// set), and one Prometheus endpoint for all of it on METRICS_PORT. This file is wiring only. SIGTERM stops the servers first and the stores last, so nothing
// accepted is lost or corrupted.
import { startApi } from '../api/start-api.ts';
import { startDashboard } from '../dashboard/start-dashboard.ts';
import { ensureSpaBuilt } from '../dashboard/spa-assets.ts';
import { demoOwnerInvite, inviteUrl } from '../shared/accounts/invites.ts';
import { createRedirectorServer } from '../redirector/create-redirector.ts';
import { uwsBuild } from '../redirector/uws-native.ts';
import { createAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { loadConfigOrExit, startSchema } from '../shared/config/config.ts';
import { ensureDemoOrganization } from '../shared/keys/demo-bootstrap.ts';
import { findDemoOrganization } from '../shared/orgs/org-repository.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startMetricsServer } from '../shared/runtime/metrics-server.ts';
import { allSpools } from '../shared/runtime/open-analytics.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { startDeliveryWorker } from '../shared/webhooks/delivery-worker.ts';
import { startLinkExpirySweep } from '../shared/links/link-expiry.ts';
import { startRetentionSchedule } from '../shared/analytics/store/retention-schedule.ts';
import { lockDataDir } from '../shared/runtime/data-dir-lock.ts';
import { listenProblem } from '../shared/runtime/listen-failure.ts';
import { onStartupFailure, startOrExit } from '../shared/runtime/startup.ts';
import { Readiness } from '../shared/runtime/readiness.ts';

const config = loadConfigOrExit(startSchema);
// A start that cannot happen is one plain line (startup.ts); everything else is logged as JSON.
const say = (m: string): void => void process.stderr.write(`[start] ${m}\n`);
const logger = createLogger('shortlink', config.LOG_LEVEL);
const metrics = createProcessMetrics();

// Before anything under DATA_DIR is touched: a second `npm start` on it stops here.
const lock = await startOrExit(async () => lockDataDir(config.DATA_DIR), say);
onStartupFailure(lock.release);
// Before the database, the demo key and chDB: a taken port is the only line a failed start prints.
await startOrExit(async () => {
  for (const s of [
    { portSetting: 'API_PORT', hostSetting: 'API_HOST', port: config.API_PORT, host: config.API_HOST },
    { portSetting: 'REDIRECT_PORT', hostSetting: 'REDIRECT_HOST', port: config.REDIRECT_PORT, host: config.REDIRECT_HOST },
    { portSetting: 'DASHBOARD_PORT', hostSetting: 'DASHBOARD_HOST', port: config.DASHBOARD_PORT, host: config.DASHBOARD_HOST },
  ]) {
    const problem = await listenProblem(s);
    if (problem) throw problem;
  }
}, say);
// The dashboard's pages are built when their sources changed since the last build (npm install builds them).
await startOrExit(() => ensureSpaBuilt((m) => logger.info(m)), say);
const backends = await startOrExit(() => openBackends(config, { logger: logger.child({ role: 'backends' }) }), say);
onStartupFailure(backends.close);
for (const line of backends.summary) logger.info(line);
// Before any listener opens, so the key is printed by the time the service answers.
const demo = await ensureDemoOrganization(backends.db.sql);
if (demo) {
  process.stdout.write(
    [
      '',
      `Demo organisation ${demo.orgId} created. Its API key (shown once):`,
      `  ${demo.key}`,
      'Try:',
      `  curl -s -X POST http://localhost:${config.API_PORT}/link/external/v1/shortenedUrl/save \\`,
      `    -H 'X-API-KEY: ${demo.key}' -H 'Content-Type: application/json' \\`,
      `    -d '{"url":"https://example.com/hello","utmSource":"readme"}'`,
      '',
    ].join('\n'),
  );
}
await backends.startOutboxRelay();

const analytics = await startOrExit(() => backends.analytics(), say);
const pipeline = createAnalyticsPipeline({
  ...analytics,
  backfill: allSpools(analytics),
  logger: logger.child({ role: 'analytics' }),
});
metrics.watchPipeline(pipeline);
const webhooks = startDeliveryWorker(backends.db.sql, analytics.store, config, logger);
const linkExpiry = startLinkExpirySweep(backends.db.sql, config, backends.linkClicks, logger);
const retention = startRetentionSchedule(backends.db.sql, analytics.store, config, logger);
metrics.watchWebhooks(webhooks);
onStartupFailure(pipeline.close);

// One readiness for the whole process: /readyz on every port answers 503 until everything is up,
// and from the stop signal on.
const readiness = new Readiness();
// Before the API and the redirector: once they answer, everything is up.
const dashboard = await startOrExit(() => startDashboard(backends, config, { logger: logger.child({ role: 'dashboard' }), readiness }), say);
const api = await startOrExit(() => startApi(backends, config, { logger: logger.child({ role: 'api' }), telemetry: metrics.telemetry, readiness }), say);
const redirector = await startOrExit(
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
      config,
      metricsRegistry: metrics.registry,
      logger: logger.child({ role: 'redirector' }),
      readiness,
    }),
  say,
);

// Closed in reverse: the servers stop accepting, then the pipeline writes what it holds, then the
// backends (relay, bus, store, database) close, and DATA_DIR's lock goes last.
const metricsServer = await startOrExit(
  () =>
    startMetricsServer({
      port: config.METRICS_PORT,
      host: config.METRICS_HOST,
      render: metrics.render,
      onError: (err) => logger.error({ err }, 'metrics'),
      log: { info: (m) => logger.info(`${m} (the whole process)`), warn: (m) => logger.warn(m) },
    }),
  say,
);
onShutdown(
  [
    async () => lock.release(),
    backends.close,
    () => webhooks.stop(),
    () => linkExpiry.stop(),
    () => retention.stop(),
    pipeline.close,
    api.close,
    redirector.close,
    dashboard.close,
    metricsServer.close,
  ],
  logger,
  { readiness },
);
readiness.markReady();

logger.info(`API on http://localhost:${api.port}, redirector on http://localhost:${redirector.port} (${uwsBuild().description})`);
process.stdout.write(`Dashboard: ${dashboard.url}\n`);
// Until the demo organisation has an owner, every start prints a fresh owner invite (earlier ones are revoked).
const demoOrg = await findDemoOrganization(backends.db.sql);
const ownerToken = demoOrg ? await demoOwnerInvite(backends.db.sql, demoOrg.id) : null;
if (ownerToken) process.stdout.write(`Owner invite for the demo organisation (valid 7 days, works once):\n  ${inviteUrl(dashboard.url, ownerToken)}\n`);
