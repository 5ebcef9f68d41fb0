// Invariant: the production topology (start:api, a 2-worker start:redirector, start:ingest) on
// real Postgres, our own killable redis-server and the ClickHouse stand-in loses no request and
// no event through each fault, under wrk load: every request wrk sent got an answer (no read,
// write or timeout error), and the events stored for the scenario's link equal the redirects
// served, with no duplicate. Run by `npm run test:faults` (and .ci/run); each scenario is bounded.
import { mkdtempSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EVENTS_TABLE } from '../../shared/analytics/clickhouse/events-table.ts';
import { METRICS_PORTS } from '../../shared/config/config.ts';
import type { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { openHttpStore } from '../support/analytics-stores.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../support/fake-clickhouse-http.ts';
import { createTestDatabase, type TestDatabase } from '../support/servers.ts';
import { send, until } from '../support/http-request.ts';
import { adminJson, apiClient, freePort, productionEnv } from '../support/service-process.ts';
import { runWrk, startGroup, startOwnRedis, type GroupProcess, type OwnRedis, type WrkResult } from './fault-rig.ts';
import { removeTestDir } from '../support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const LOAD_SECONDS = 12;
const CONNECTIONS = 16;

describe('faults under load: nothing unanswered, nothing lost, nothing doubled', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'faults-'));
  chmodSync(dir, 0o755);
  let db: TestDatabase;
  let redis: OwnRedis;
  let ch: FakeClickHouse;
  let store: AnalyticsStore;
  let env: NodeJS.ProcessEnv;
  let api: GroupProcess;
  let ingest: GroupProcess;
  let redirector: GroupProcess;
  let redirectPort = 0;
  let client: ReturnType<typeof apiClient>;
  const report: string[] = [];

  const startRedirector = (): Promise<GroupProcess> =>
    startGroup('redirector/main.ts', env, { healthUrl: `http://127.0.0.1:${redirectPort}`, readyLine: 'listening on', readyCount: 2 });

  beforeAll(async () => {
    if (!pgUrl) throw new Error('the fault suite needs the machine Postgres on 127.0.0.1:5432');
    db = await createTestDatabase(pgUrl);
    redis = await startOwnRedis(join(dir, 'redis'));
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    store = await openHttpStore(ch.url, { requestTimeoutMs: 3000 });
    const apiPort = await freePort();
    redirectPort = await freePort();
    env = productionEnv(
      { databaseUrl: db.url, redisUrl: redis.url, redisPrefix: 'faults:', clickhouseUrl: ch.url, dataDir: join(dir, 'data'), apiPort, redirectPort },
      // Metrics on each role's default port (api 9464, redirector 9465, ingest 9466), as an operator
      // following the README runs them: the rolling restart starts a second redirector cluster
      // while the first still holds 9465.
      { SHUTDOWN_GRACE_MS: '3000', METRICS_PORT: '' },
    );
    api = await startGroup('api/main.ts', env, { healthUrl: `http://127.0.0.1:${apiPort}` });
    ingest = await startGroup('ingest/main.ts', env, { readyLine: 'backfill worker running' });
    redirector = await startRedirector();
    const admin = (...args: string[]) => adminJson(env, ...args);
    const org = await admin('org', 'create', '--name', 'Faults', '--plan', 'BUSINESS');
    const key = await admin('key', 'create', '--org', org.id!, '--label', 'faults');
    client = apiClient(`http://127.0.0.1:${apiPort}`, key.key!);
  }, 180_000);

  afterAll(async () => {
    process.stdout.write(`\nfault suite counts:\n${report.join('\n')}\n`);
    for (const p of [redirector, ingest, api]) await p?.stop();
    await redis?.kill();
    await store?.close();
    await ch?.close();
    await db?.drop();
    removeTestDir(dir);
  }, 120_000);

  const newLink = async (): Promise<string> => {
    const r = await client.save<{ shortCode: string }>({ url: `https://faults.example/${Date.now()}` });
    expect(r.status).toBe(200);
    return r.body.response!.shortCode;
  };

  /** Events stored for `code` (deduplicated rows, and distinct event ids), once they stop changing. */
  const storedEvents = async (code: string, expected: number): Promise<{ rows: number; distinct: number }> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [row] = await store.transport.queryRows<{ n: string; u: string }>(
        `SELECT count() AS n, uniqExact(event_id) AS u FROM ${EVENTS_TABLE} FINAL WHERE short_code = {code:String}`,
        { code },
      );
      const got = { rows: Number(row?.n ?? 0), distinct: Number(row?.u ?? 0) };
      if (got.rows >= expected || Date.now() > deadline) return got;
      await sleep(500);
    }
  };

  /** `everyRequestAnswered`: false only when nothing listens at the end (a whole cluster stopped). */
  const check = async (name: string, code: string, load: WrkResult, everyRequestAnswered = true): Promise<void> => {
    const events = await storedEvents(code, load.found);
    report.push(
      `${name}: requests ${load.requests}, 302 ${load.found}, other ${load.other}, errors connect/read/write/timeout ${load.connect}/${load.read}/${load.write}/${load.timeout}; events ${events.rows} (distinct ${events.distinct})`,
    );
    expect(load.found).toBeGreaterThan(1000);
    expect(load.other).toBe(0);
    if (everyRequestAnswered) expect({ read: load.read, write: load.write, timeout: load.timeout }).toEqual({ read: 0, write: 0, timeout: 0 });
    // No event doubled, none lost. wrk stops at its deadline with at most one request in flight
    // per connection, which the server still answers and records but wrk no longer counts.
    expect(events.distinct).toBe(events.rows);
    expect(events.rows - load.found).toBeGreaterThanOrEqual(0);
    expect(events.rows - load.found).toBeLessThanOrEqual(CONNECTIONS);
  };

  const url = (code: string): string => `http://127.0.0.1:${redirectPort}/${code}`;

  it('ClickHouse outage', async () => {
    const code = await newLink();
    const load = runWrk(url(code), LOAD_SECONDS);
    await sleep(3_000);
    await ch.stop();
    await sleep(500);
    const started = Date.now();
    const read = await client.get('/link/external/v1/analytics/events?since=2020-01-01T00:00:00Z&limit=5');
    const readMs = Date.now() - started;
    const aggStarted = Date.now();
    const aggregates = await client.get(
      `/link/external/v1/analytics/aggregates?groupBy=time&from=${new Date().toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}`,
    );
    const aggregatesMs = Date.now() - aggStarted;
    await sleep(4_000);
    await ch.start();
    const result = await load;
    expect(read.status).toBe(503);
    expect(read.body.errors?.[0]).toMatchObject({
      code: 'SML006',
      message: 'Service temporarily unavailable',
      details: { kind: 'dependency_unavailable', retryAfterSeconds: 1 },
    });
    expect(read.headers.get('retry-after')).toBe('1');
    expect(readMs).toBeLessThan(1_000);
    expect(aggregates.status).toBe(503);
    expect(aggregates.body.errors?.[0]).toMatchObject({ code: 'SML006' });
    expect(aggregatesMs).toBeLessThan(1_000);
    expect(result.connect).toBe(0);
    await check(`ClickHouse down 5 s (analytics read during it: 503 SML006 in ${readMs} ms)`, code, result);
  }, 120_000);

  it('Redis outage: redirects and API saves go on; saves answer within a second; no stale link after', async () => {
    const code = await newLink();
    const stale = await newLink();
    expect((await send(redirectPort, `/${stale}`, { host: 'sho.rt' })).status).toBe(302); // cached by a worker now
    const load = runWrk(url(code), LOAD_SECONDS);
    await sleep(3_000);
    await redis.kill();
    await sleep(500);
    const started = Date.now();
    const saved = await client.save({ url: 'https://faults.example/during-redis-outage' });
    const saveMs = Date.now() - started;
    // A change made while the bus is down: the redirectors must not serve the old URL for
    // more than a second after Redis is back.
    const moved = `https://faults.example/moved-${Date.now()}`;
    expect((await client.save({ url: moved, shortCode: stale })).status).toBe(200);
    await sleep(4_500);
    await redis.start();
    const back = Date.now();
    let staleMs = -1;
    while (Date.now() - back < 5_000) {
      const r = await send(redirectPort, `/${stale}`, { host: 'sho.rt' });
      if (r.headers.location === moved) {
        staleMs = Date.now() - back;
        break;
      }
      await sleep(25);
    }
    const result = await load;
    expect(saved.status).toBe(200);
    expect(saveMs).toBeLessThan(1_000);
    expect(staleMs).toBeGreaterThanOrEqual(0);
    expect(staleMs).toBeLessThanOrEqual(1_000);
    expect(result.connect).toBe(0);
    await check(`Redis down 5 s (API save during it: ${saveMs} ms; a link changed during it served fresh ${staleMs} ms after Redis returned)`, code, result);
  }, 120_000);

  it('ClickHouse and Redis down together', async () => {
    const code = await newLink();
    const load = runWrk(url(code), LOAD_SECONDS);
    await sleep(3_000);
    await ch.stop();
    await sleep(1_000);
    await redis.kill();
    await sleep(5_000);
    await redis.start();
    await ch.start();
    const result = await load;
    expect(result.connect).toBe(0);
    await check('ClickHouse and Redis down 5 s', code, result);
  }, 120_000);

  it('rolling restart with the default metrics ports: a new cluster on the port, then SIGTERM to the old; and SIGHUP worker restarts', async () => {
    const code = await newLink();
    const load = runWrk(url(code), 20);
    await sleep(2_000);
    const fresh = await startRedirector();
    const old = redirector;
    redirector = fresh;
    // The old primary holds the redirector's metrics port; the new cluster serves without it.
    expect(old.output()).toContain(`metrics on 127.0.0.1:${METRICS_PORTS.redirector}/metrics`);
    expect(fresh.output()).toContain(`METRICS_PORT ${METRICS_PORTS.redirector} is in use; serving without /metrics until it is free`);
    old.signal('SIGTERM');
    expect(await old.exited()).toBe(0);
    // ... and takes it over once the old one is gone.
    await until(() => fresh.output().includes(`metrics on 127.0.0.1:${METRICS_PORTS.redirector}/metrics`), 5_000, 100);
    expect((await send(METRICS_PORTS.redirector, '/metrics')).text).toMatch(/^redirector_workers 2$/m);
    fresh.signal('SIGHUP'); // the primary replaces its workers one by one
    const result = await load;
    const rolled = Date.now() + 60_000;
    while (!fresh.output().includes('rolling restart done') && Date.now() < rolled) await sleep(200);
    expect(fresh.output()).toContain('rolling restart done');
    expect(fresh.output()).not.toContain('did not become ready');
    expect(result.connect).toBe(0);
    await check('rolling restart (new cluster, old SIGTERMed) + SIGHUP worker restarts', code, result);
  }, 120_000);

  it('SIGTERM to the whole process group (primary and workers at once)', async () => {
    const code = await newLink();
    const load = runWrk(url(code), 6);
    await sleep(3_000);
    redirector.signalGroup('SIGTERM');
    expect(await redirector.exited()).toBe(0);
    // Once the cluster is gone nothing listens: wrk's later connections fail (they carry no
    // request anyone answered). What must hold: every redirect served became exactly one event.
    const result = await load;
    await check('group SIGTERM', code, result, false);
    redirector = await startRedirector();
  }, 120_000);
});
