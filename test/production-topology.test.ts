// The production topology end to end: `start:api`, `start:redirector` (a 2-worker uWS cluster)
// and `start:ingest` as three processes over the machine's real Postgres and Redis, with a
// test-only ClickHouse HTTP endpoint running the chDB engine. Covers cross-process cache
// invalidation and a ClickHouse outage followed by recovery with no event lost or doubled, seen
// on each process's METRICS_PORT (insert failures and spooling on the redirector, backfill and its
// lag on ingest).
import { mkdtempSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { send, until } from './support/http-request.ts';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from './support/servers.ts';
import { adminJson, apiClient, freePort, productionEnv, startProcess, type ChildService } from './support/service-process.ts';
import { removeTestDir } from './support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const redisUrl = inject('realRedisUrl');
const CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

type Page = { data: { eventId: string }[]; hasMore: boolean; nextCursor: string | null; nextSince: string | null; afterEventId: string | null };

describe.skipIf(!pgUrl || !redisUrl)('production topology: three processes', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'topology-'));
  chmodSync(dir, 0o755);
  const prefix = redisTestPrefix();
  let db: TestDatabase;
  let ch: FakeClickHouse;
  let env: NodeJS.ProcessEnv;
  const procs: ChildService[] = [];
  let apiUrl = '';
  let redirectPort = 0;
  let client: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    const apiPort = await freePort();
    redirectPort = await freePort();
    const ingestHealthPort = await freePort();
    env = productionEnv(
      { databaseUrl: db.url, redisUrl: redisUrl!, redisPrefix: prefix, clickhouseUrl: ch.url, dataDir: join(dir, 'data'), apiPort, redirectPort },
      { ANALYTICS_SYNC_SETTLE_MS: '50', INGEST_HEALTH_PORT: String(ingestHealthPort) },
    );
    apiUrl = `http://127.0.0.1:${apiPort}`;
    procs.push(await startProcess('api/main.ts', env, apiUrl));
    procs.push(await startProcess('redirector/main.ts', env, `http://127.0.0.1:${redirectPort}`));
    // The ingest worker counts as started once its health listener answers /healthz.
    procs.push(await startProcess('ingest/main.ts', env, `http://127.0.0.1:${ingestHealthPort}`));
    const admin = (...args: string[]) => adminJson(env, ...args);
    const org = await admin('org', 'create', '--name', 'Prod', '--plan', 'BUSINESS');
    const key = await admin('key', 'create', '--org', org.id!, '--label', 'prod');
    client = apiClient(apiUrl, key.key!);
  }, 120_000);

  afterAll(async () => {
    for (const p of procs.reverse()) await p.stop();
    await ch?.close();
    await db?.drop();
    await deleteRedisPrefix(redisUrl!, prefix);
    removeTestDir(dir);
  });

  let sent = 0;
  /** GET /metrics on the METRICS_PORT a process logged (`metrics on 127.0.0.1:<port>/metrics`). */
  const scrape = async (p: ChildService): Promise<string> => {
    const port = /metrics on 127\.0\.0\.1:(\d+)\/metrics/.exec(p.output())?.[1];
    expect(port).toBeDefined();
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  };
  const sample = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}".]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const click = (code: string) => {
    sent++;
    return send(redirectPort, `/${code}`, { host: 'sho.rt', headers: { 'user-agent': CHROME, accept: 'text/html' } });
  };
  const syncAll = async (): Promise<string[]> => {
    const ids: string[] = [];
    let since = '2020-01-01T00:00:00Z';
    let after: string | null = null;
    for (;;) {
      const r: { status: number; body: { response?: Page } } = await client.get<Page>(
        `/link/external/v1/analytics/events?since=${encodeURIComponent(since)}${after ? `&afterEventId=${after}` : ''}&limit=5`,
      );
      expect(r.status).toBe(200);
      ids.push(...r.body.response!.data.map((e) => e.eventId));
      since = r.body.response!.nextSince!;
      after = r.body.response!.afterEventId;
      if (!r.body.response!.hasMore) return ids;
    }
  };

  it('a save through the API is seen by every redirector worker within a second (Redis pub/sub)', async () => {
    const saved = await client.save<{ shortCode: string }>({ url: 'https://example.com/v1', shortCode: 'prod-link-1' });
    expect(saved.status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await click('prod-link-1')).headers.location).toBe('https://example.com/v1');
    await client.save({ url: 'https://example.com/v2', shortCode: 'prod-link-1' });
    const t0 = Date.now();
    // several connections, so both workers are asked
    await until(
      async () => (await Promise.all([1, 2, 3, 4].map(() => click('prod-link-1')))).every((r) => r.headers.location === 'https://example.com/v2'),
      1000,
      20,
    );
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('every click reaches ClickHouse once, through an outage of the store and its recovery', async () => {
    await client.save({ url: 'https://example.com/outage', shortCode: 'prod-outage' });
    for (let i = 0; i < 5; i++) expect((await click('prod-outage')).status).toBe(302);
    // every click sent so far, from both tests, arrives exactly once
    await until(async () => (await syncAll()).length >= sent, 15_000, 250);
    const before = (await syncAll()).length;
    expect(before).toBe(sent);

    await ch.stop();
    const t0 = Date.now();
    for (let i = 0; i < 7; i++) expect((await click('prod-outage')).status).toBe(302);
    expect(Date.now() - t0).toBeLessThan(2000); // an outage of the store does not slow redirects
    // The redirector (the process doing the inserts) shows it on its METRICS_PORT once a flush failed and spooled.
    const [api, redirector, ingest] = procs;
    let during = '';
    await until(async () => sample((during = await scrape(redirector!)), 'shortlink_analytics_spooled_bytes_total') > 0, 10_000, 250);
    expect(sample(during, 'shortlink_analytics_insert_failures_total')).toBeGreaterThan(0);
    expect(sample(during, 'shortlink_analytics_spooled_batches_total')).toBeGreaterThan(0);
    expect(sample(during, 'shortlink_analytics_spooled_bytes_total')).toBeGreaterThan(0);
    // ingest, which backfills the shared stream, reports how old its oldest waiting click is.
    const streamLag = `shortlink_backfill_lag_seconds{spool="redis-stream:${prefix}analytics:spool"}`;
    await until(async () => sample(await scrape(ingest!), streamLag) > 0, 10_000, 250);
    await ch.start();

    await until(async () => (await syncAll()).length >= before + 7, 30_000, 500);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await syncAll();
    expect(after.length).toBe(before + 7);
    expect(new Set(after).size).toBe(after.length);
    // Every click was inserted by the redirector or spooled by it, and exactly what was spooled was
    // backfilled. The split is not fixed: the two workers flush on their own 1 s timers, so a
    // worker whose flush of outage clicks comes after ch.start() inserts them itself.
    const served = await scrape(redirector!);
    const inserted = sample(served, 'shortlink_analytics_events_inserted_total');
    const spooled = sample(served, 'shortlink_analytics_spooled_events_total');
    const ingested = await scrape(ingest!);
    // ingest backfills the shared stream; a worker backfills its own disk spool (Redis refused).
    const backfilled = sample(ingested, 'shortlink_backfill_inserted_events_total') + sample(served, 'shortlink_backfill_inserted_events_total');
    expect(spooled).toBeGreaterThan(0);
    expect(inserted + spooled).toBe(sent);
    expect(backfilled).toBe(spooled);
    expect(sample(ingested, `shortlink_backfill_pending_batches{spool="redis-stream:${prefix}analytics:spool"}`)).toBe(0);
    expect(sample(ingested, streamLag)).toBe(0);
    expect(sample(await scrape(api!), 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  }, 60_000);

  it('all three processes stop cleanly on SIGTERM', async () => {
    const codes = [];
    for (const p of [...procs].reverse()) codes.push(await p.stop('SIGTERM'));
    expect(codes).toEqual([0, 0, 0]);
  });
});
