// Invariant: the production API process (`npm run start:api`): config parsed once, backends from
// DATABASE_URL / REDIS_URL, clean shutdown on SIGTERM.
import { apiSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { openBackends } from '../shared/runtime/backends.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { AnalyticsStore } from '../shared/analytics/store/analytics-store.ts';
import { HttpClickHouseTransport } from '../shared/analytics/clickhouse/http-clickhouse-transport.ts';
import { storeAnalyticsReads } from '../shared/analytics/reads/store-analytics-reads.ts';
import { refreshDestinationPreview } from '../shared/previews/refresh-destination-preview.ts';
import { startApi } from './start-api.ts';

const config = loadConfigOrExit(apiSchema);
const log = (m: string) => process.stderr.write(`[api] ${m}\n`);
const backends = await openBackends(config, log, { relayOutbox: true });
// Analytics reads go straight to ClickHouse; chDB's embedded store belongs to `npm start` alone.
// No schema work here (the ingest process ensures it), so a ClickHouse outage never stops the API.
const store = config.CLICKHOUSE_URL
  ? new AnalyticsStore(new HttpClickHouseTransport({ url: config.CLICKHOUSE_URL }), { syncSettleMillis: config.ANALYTICS_SYNC_SETTLE_MS })
  : null;
if (!store) log('CLICKHOUSE_URL is not set: the analytics endpoints answer 500 SML001');
const api = await startApi(backends, {
  analytics: store ? storeAnalyticsReads(store) : undefined,
  onDestinationSaved: (url) => void refreshDestinationPreview({ sql: backends.db.sql, allowPrivate: config.PREVIEW_ALLOW_PRIVATE }, url),
  port: config.API_PORT,
  host: config.API_HOST,
  defaultShortDomain: config.DEFAULT_SHORT_DOMAIN,
  logLevel: config.LOG_LEVEL,
});
log(`listening on ${config.API_HOST}:${api.port}`);
onShutdown([backends.close, async () => store?.close(), api.close], log);
