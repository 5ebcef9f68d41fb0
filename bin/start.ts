// Invariant: `npm start` runs the whole service in this one process: the API on API_PORT, the
// redirector on REDIRECT_PORT, and the analytics pipeline, over the embedded backends under
// DATA_DIR unless server URLs are configured. SIGTERM stops the servers first and the stores
// last, so nothing is lost or corrupted.
import { startApi } from '../api/start-api.ts';
import { storeAnalyticsReads } from '../shared/analytics/reads/store-analytics-reads.ts';
import { openAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';
import { createRedirectorServer } from '../redirector/redirector-server.ts';
import { refreshDestinationPreview } from '../shared/previews/refresh-destination-preview.ts';
import { loadConfigOrExit, startSchema } from '../shared/config/config.ts';
import { ensureDemoOrganization } from '../shared/orgs/demo-bootstrap.ts';
import { openBackends } from '../shared/runtime/backends.ts';
import { onShutdown, type Closer } from '../shared/runtime/shutdown.ts';

const config = loadConfigOrExit(startSchema);
const debug = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
const log = (m: string) => process.stderr.write(`[start] ${m}\n`);
const closers: Closer[] = [];

const backends = await openBackends(config, debug ? (m) => log(`postgres: ${m}`) : () => {}, { relayOutbox: true });
closers.push(backends.close);
log(config.DATABASE_URL ? 'Postgres: DATABASE_URL' : `Postgres: embedded in ${config.DATA_DIR}/postgres`);
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

const pipeline = await openAnalyticsPipeline(config, {
  backfill: true,
  redis: backends.redis,
  syncSettleMillis: config.ANALYTICS_SYNC_SETTLE_MS,
  log: (m) => log(`analytics: ${m}`),
});
closers.push(pipeline.close);
log(config.CLICKHOUSE_URL ? 'ClickHouse: CLICKHOUSE_URL' : `ClickHouse: chDB in ${config.DATA_DIR}/analytics`);

const api = await startApi(backends, {
  analytics: storeAnalyticsReads(pipeline.store),
  onDestinationSaved: (url) => void refreshDestinationPreview({ sql: backends.db.sql, allowPrivate: config.PREVIEW_ALLOW_PRIVATE }, url),
  port: config.API_PORT,
  host: config.API_HOST,
  defaultShortDomain: config.DEFAULT_SHORT_DOMAIN,
  logLevel: config.LOG_LEVEL,
});
closers.push(api.close);

const redirector = await createRedirectorServer({
  sql: backends.db.sql,
  bus: backends.bus,
  redis: backends.redis,
  config,
  hitSink: pipeline.sink,
  log: (m) => log(`redirector: ${m}`),
});
closers.push(redirector.close);

log(`API on http://localhost:${api.port}, redirector on http://localhost:${redirector.port}`);
onShutdown(closers, log);
