// Invariant: while Postgres is down, the production API and redirector answer within seconds with
// 503 SML006 and Retry-After (never a 500, never a hang), links already cached keep redirecting,
// and both recover by themselves when Postgres returns. The Postgres here is our own embedded
// cluster on a spare port; the machine's shared servers are never stopped.
import { chmodSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openEmbeddedPostgres, type EmbeddedCluster } from '../../shared/db/embedded-postgres.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../support/fake-clickhouse-http.ts';
import { send } from '../support/http-request.ts';
import { createTestDatabase, uniqueName, type TestDatabase } from '../support/servers.ts';
import { adminJson, apiClient, freePort, productionEnv } from '../support/service-process.ts';
import { startGroup, type GroupProcess } from './fault-rig.ts';
import { removeTestDir } from '../support/test-dirs.ts';

const redisUrl = inject('realRedisUrl');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Postgres outage', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'pg-outage-'));
  chmodSync(dir, 0o755);
  let cluster: EmbeddedCluster;
  let db: TestDatabase;
  let ch: FakeClickHouse;
  let api: GroupProcess;
  let redirector: GroupProcess;
  let redirectPort = 0;
  let client: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    if (!redisUrl) throw new Error('the fault suite needs the machine Redis on 127.0.0.1:6379');
    cluster = await openEmbeddedPostgres(join(dir, 'pg'));
    db = await createTestDatabase(cluster.url);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    const apiPort = await freePort();
    redirectPort = await freePort();
    const env = productionEnv({
      databaseUrl: db.url,
      redisUrl,
      redisPrefix: `${uniqueName('pgout')}:`,
      clickhouseUrl: ch.url,
      dataDir: join(dir, 'data'),
      apiPort,
      redirectPort,
    });
    api = await startGroup('api/main.ts', env, { healthUrl: `http://127.0.0.1:${apiPort}` });
    redirector = await startGroup('redirector/main.ts', env, { healthUrl: `http://127.0.0.1:${redirectPort}`, readyLine: 'listening on', readyCount: 2 });
    const org = await adminJson(env, 'org', 'create', '--name', 'PgOutage', '--plan', 'BUSINESS');
    const key = await adminJson(env, 'key', 'create', '--org', org.id!, '--label', 'pg-outage');
    client = apiClient(`http://127.0.0.1:${apiPort}`, key.key!);
  }, 180_000);

  afterAll(async () => {
    if (process.env.DEBUG_FAULTS) process.stdout.write(`--- api\n${api?.output()}\n--- redirector\n${redirector?.output()}\n`);
    for (const p of [redirector, api]) await p?.stop();
    await db?.sql.end({ timeout: 1 }).catch(() => {});
    await cluster?.release();
    await ch?.close();
    removeTestDir(dir);
  }, 120_000);

  it('answers 503 SML006 with Retry-After within seconds, serves cached links, and recovers', async () => {
    const saved = await client.save<{ shortCode: string }>({ url: 'https://pg-outage.example/cached' });
    expect(saved.status).toBe(200);
    const cached = saved.body.response!.shortCode;
    // Both workers may answer: warm each worker's LRU (and the Redis tier) with a few requests.
    for (let i = 0; i < 8; i++) expect((await send(redirectPort, `/${cached}`, { host: 'sho.rt' })).status).toBe(302);

    await db.sql.end({ timeout: 1 });
    await cluster.release();

    const t0 = Date.now();
    const down = await client.save({ url: 'https://pg-outage.example/during' });
    const saveMs = Date.now() - t0;
    expect(down.status).toBe(503);
    expect(down.body.errors![0]!.code).toBe('SML006');
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(saveMs).toBeLessThan(5_000);

    const t1 = Date.now();
    const miss = await send(redirectPort, '/neverseen01', { host: 'sho.rt' });
    const missMs = Date.now() - t1;
    expect(miss.status).toBe(503);
    expect(Buffer.from(miss.body).toString()).toContain('SML006');
    expect(miss.headers['retry-after']).toMatch(/^\d+$/);
    expect(missMs).toBeLessThan(5_000);
    expect((await send(redirectPort, `/${cached}`, { host: 'sho.rt' })).status).toBe(302);

    cluster = await openEmbeddedPostgres(join(dir, 'pg'), () => {}, Number(new URL(db.url).port));
    let recoveredMs = -1;
    const back = Date.now();
    while (Date.now() - back < 20_000) {
      const r = await client.save({ url: 'https://pg-outage.example/after' });
      if (r.status === 200) {
        recoveredMs = Date.now() - back;
        break;
      }
      await sleep(200);
    }
    expect(recoveredMs).toBeGreaterThanOrEqual(0);
    // The redirector's misses load again too (no worker stayed broken).
    expect((await send(redirectPort, '/neverseen01', { host: 'sho.rt' })).status).toBe(404);
    process.stdout.write(
      `\npostgres outage: API save 503 in ${saveMs} ms, redirect miss 503 in ${missMs} ms, cached link 302, API back ${recoveredMs} ms after restart\n`,
    );
  }, 120_000);
});
