// Invariant: the dashboard's pages are built (when stale) before anything boots; one embedded Postgres cluster serves the whole test run (each suite creates its own
// database in it), as does one 3-master Redis Cluster started from the machine's redis-server
// (each suite under its own key prefix), and the run learns once whether the machine's real
// Postgres and Redis answer.
// With CI=true (or REQUIRE_SERVERS=1) an unreachable real server fails the run instead of
// skipping its suites.
import { chmodSync, mkdtempSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureSpaBuilt } from '../../dashboard/spa-assets.ts';
import { openEmbeddedPostgres } from '../../shared/db/embedded-postgres.ts';
import { probePostgres, probeRedis, REAL_PG_ADMIN_URL, REAL_REDIS_URL } from './servers.ts';
import { canStartRedisCluster, startRedisCluster } from './redis-cluster.ts';
import { removeTestDir } from './test-dirs.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    embeddedPgUrl: string;
    realPgUrl: string | null;
    realRedisUrl: string | null;
    /** Seeds of the 3-master Redis Cluster this run started (REDIS_CLUSTER_NODES), null when it could not. */
    redisClusterNodes: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync('.tmp', { recursive: true });
  // Once per run, before any service boots: the dashboard's pages (only when their sources changed).
  await ensureSpaBuilt();
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'test-pg-'));
  chmodSync(dir, 0o755); // the embedded cluster runs as the 'postgres' user when we are root
  const cluster = await openEmbeddedPostgres(dir);
  const [pgOk, redisOk, canCluster] = await Promise.all([probePostgres(REAL_PG_ADMIN_URL), probeRedis(REAL_REDIS_URL), canStartRedisCluster()]);
  const required = process.env.CI === 'true' || process.env.REQUIRE_SERVERS === '1';
  if (required && (!pgOk || !redisOk || !canCluster)) {
    await cluster.release();
    throw new Error(`real servers required but unavailable: postgres=${pgOk} redis=${redisOk} redis-server for a cluster=${canCluster}`);
  }
  // One Redis Cluster for the whole run, like the embedded Postgres: each suite uses its own prefix.
  const redisCluster = canCluster ? await startRedisCluster(join(dir, 'redis-cluster')) : null;
  project.provide('embeddedPgUrl', cluster.url);
  project.provide('realPgUrl', pgOk ? REAL_PG_ADMIN_URL : null);
  project.provide('realRedisUrl', redisOk ? REAL_REDIS_URL : null);
  project.provide('redisClusterNodes', redisCluster?.seeds ?? null);
  return async () => {
    await redisCluster?.close();
    await cluster.release();
    removeTestDir(dir);
  };
}
