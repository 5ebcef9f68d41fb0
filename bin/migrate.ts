// Invariant: `migrate` (the image's `shortlink migrate …`, `npm run -s migrate -- …`) makes a
// schema before a rollout and exits: 0 with one line saying what exists, 2 with one line naming
// the setting when one is missing or wrong, 1 when a server refuses. Every process still ensures
// its schemas at start (each idempotent); this runs them once, e.g. as a Kubernetes Job, so that
// the processes of a rollout find them made. `clickhouse --print` prints, without a server, the
// statements CLICKHOUSE_CLUSTER makes the service run (deploy/clickhouse-cluster.sql for `events`).
import { clusterSchemaSql } from '../shared/analytics/clickhouse/analytics-schema.ts';
import { commonSchema, loadConfigOrExit } from '../shared/config/config.ts';
import { createLogger } from '../shared/log/logger.ts';
import { migrateSchema } from '../shared/runtime/open-backends.ts';
import { startOrExit } from '../shared/runtime/startup.ts';

const USAGE = `Usage: migrate postgres | clickhouse [--print [--cluster NAME]]
  postgres            applies the pending Postgres migrations (DATABASE_DIRECT_URL if set, else DATABASE_URL)
  clickhouse          creates the analytics tables at CLICKHOUSE_URL (ON CLUSTER with CLICKHOUSE_CLUSTER)
  clickhouse --print  prints the statements CLICKHOUSE_CLUSTER (or --cluster NAME) makes the service run`;

const say = (m: string): void => void process.stderr.write(`[migrate] ${m}\n`);
function usage(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

const [target, ...rest] = process.argv.slice(2);
if (target === '--help' || target === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (target !== 'postgres' && target !== 'clickhouse') usage(target === undefined ? 'a target is required' : `unknown target '${target}'`);
const config = loadConfigOrExit(commonSchema);

if (rest[0] === '--print' && target === 'clickhouse') {
  const cluster = rest[1] === '--cluster' ? rest[2] : config.CLICKHOUSE_CLUSTER;
  if (rest.length !== 1 && !(rest[1] === '--cluster' && rest.length === 3)) usage(`unexpected ${rest.slice(1).join(' ')}`);
  if (!cluster || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(cluster)) usage('--print needs CLICKHOUSE_CLUSTER or --cluster NAME (letters, digits and _)');
  process.stdout.write(clusterSchemaSql(cluster));
  process.exit(0);
}
if (rest.length > 0) usage(`unexpected ${rest.join(' ')}`);
const line = await startOrExit(() => migrateSchema(config, target, createLogger('migrate', config.LOG_LEVEL)), say);
process.stdout.write(`${line}\n`);
process.exit(0);
