// Invariant: `npm run start:ingest` is the production backfill process: it ensures the ClickHouse
// schema and moves batches the redirectors spooled (Redis stream) into ClickHouse, each with its
// original dedup token, until SIGTERM. It needs CLICKHOUSE_URL and REDIS_URL; in embedded mode
// `npm start` runs the whole pipeline (backfill included) in its one process instead, because
// chDB's data directory belongs to exactly one process.
import { commonSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { onShutdown } from '../shared/runtime/shutdown.ts';
import { openAnalyticsPipeline } from '../shared/analytics/write-path/analytics-pipeline.ts';

const log = (m: string): void => void process.stderr.write(`[ingest] ${m}\n`);
const config = loadConfigOrExit(commonSchema);
if (!config.CLICKHOUSE_URL || !config.REDIS_URL) {
  log('start:ingest needs CLICKHOUSE_URL and REDIS_URL; in embedded mode `npm start` runs the analytics pipeline itself.');
  process.exit(2);
}

const pipeline = await openAnalyticsPipeline(config, { backfill: true, log });
const report = setInterval(() => {
  void pipeline.spool.size().then(
    (pending) => {
      const m = pipeline.backfill?.metrics();
      if (pending > 0 || (m?.failedAttempts ?? 0) > 0) log(`spooled batches pending: ${pending}; backfilled events: ${m?.insertedEvents ?? 0}; backoff ${m?.currentBackoffMs ?? 0} ms`);
    },
    () => undefined,
  );
}, 30_000);
report.unref();
onShutdown([pipeline.close], log);
log('backfill worker running');
