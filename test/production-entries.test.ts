// Invariant: the production entries (start:api, start:redirector, start:ingest) run only over
// servers: without their URLs, or with one that does not answer, each exits non-zero within
// seconds with one message naming the variable, no stack frame, and no embedded Postgres; a
// REDIRECT_PORT taken by another program stops the redirector naming REDIRECT_PORT, while a taken
// METRICS_PORT stops none of them (one line, then the port is taken once free). Once they
// run, a change made by the admin CLI holding only DATABASE_URL reaches every redirector worker
// within a second (outbox row in the CLI's transaction, relayed by the running processes).
import { mkdtempSync, chmodSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { send, until } from './support/http-request.ts';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from './support/servers.ts';
import { adminJson, freePort, productionEnv, runToExit, startProcess, type ChildService } from './support/service-process.ts';
import { removeTestDir } from './support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const redisUrl = inject('realRedisUrl');
const STACK_FRAME = /^\s+at /m;
const ENTRIES = [
  ['start:api', 'api/main.ts'],
  ['start:redirector', 'redirector/main.ts'],
  ['start:ingest', 'ingest/main.ts'],
] as const;

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'entries-'));
chmodSync(dir, 0o755);
afterAll(() => removeTestDir(dir));

async function expectRefusal(entry: string, env: NodeJS.ProcessEnv, message: RegExp, withinMs: number): Promise<string> {
  const t0 = Date.now();
  const outcome = await runToExit(entry, env, 30_000);
  expect(outcome.output).toMatch(message);
  expect(outcome.code, outcome.output).toBe(2);
  expect(outcome.output).not.toMatch(STACK_FRAME);
  expect(Date.now() - t0).toBeLessThan(withinMs);
  return outcome.output;
}

describe('production entries refuse to start without their servers', () => {
  it.each(ENTRIES)(
    '%s names every missing URL and starts no embedded Postgres',
    async (name, entry) => {
      const dataDir = join(dir, `missing-${name.replace(':', '-')}`);
      const env = { DATA_DIR: dataDir, API_PORT: '0', REDIRECT_PORT: '0', INGEST_HEALTH_PORT: '0' };
      await expectRefusal(
        entry,
        env,
        new RegExp(`${name} needs DATABASE_URL, REDIS_URL \\(or REDIS_CLUSTER_NODES\\), CLICKHOUSE_URL \\(embedded single-process mode is \`npm start\`\\)`),
        15_000,
      );
      await expectRefusal(
        entry,
        { ...env, DATABASE_URL: 'postgres://u@127.0.0.1:1/x' },
        new RegExp(`${name} needs REDIS_URL \\(or REDIS_CLUSTER_NODES\\), CLICKHOUSE_URL`),
        15_000,
      );
      expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
    },
    60_000,
  );
});

describe('production entries refuse a ClickHouse quorum without a cluster', () => {
  it.each(ENTRIES)(
    '%s names CLICKHOUSE_INSERT_QUORUM and CLICKHOUSE_CLUSTER in one line, before opening a server',
    async (_name, entry) => {
      const env = {
        DATA_DIR: join(dir, 'quorum'),
        DATABASE_URL: 'postgres://u@127.0.0.1:1/x',
        REDIS_URL: 'redis://127.0.0.1:1',
        CLICKHOUSE_URL: 'http://127.0.0.1:1',
        CLICKHOUSE_INSERT_QUORUM: '2',
      };
      const out = await expectRefusal(
        entry,
        env,
        /^\[[a-z ]+\] CLICKHOUSE_INSERT_QUORUM=2 needs CLICKHOUSE_CLUSTER \(.+\); unset it or set CLICKHOUSE_CLUSTER$/m,
        15_000,
      );
      expect(out).not.toMatch(/DATABASE_URL|REDIS_URL/);
    },
    30_000,
  );
});

describe.skipIf(!pgUrl || !redisUrl)('production entries over real servers', () => {
  const prefix = redisTestPrefix();
  let db: TestDatabase;
  let ch: FakeClickHouse;
  let closed = 0;
  const base = (): NodeJS.ProcessEnv =>
    productionEnv(
      { databaseUrl: db.url, redisUrl: redisUrl!, redisPrefix: prefix, clickhouseUrl: ch.url, dataDir: join(dir, 'data'), apiPort: 0, redirectPort: 0 },
      { REDIRECT_WORKERS: '1' },
    );

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    closed = await freePort(); // nothing listens there
  }, 60_000);

  afterAll(async () => {
    await ch?.close();
    await db?.drop();
    await deleteRedisPrefix(redisUrl!, prefix);
  });

  it.each(ENTRIES)(
    '%s names an unreachable DATABASE_URL (without its password) within seconds',
    async (_name, entry) => {
      const out = await expectRefusal(
        entry,
        { ...base(), DATABASE_URL: `postgres://shortlink:s3cret@127.0.0.1:${closed}/shortlink` },
        /DATABASE_URL postgres:\/\/shortlink:\*\*\*@127\.0\.0\.1:\d+\/shortlink does not answer \(.+\); check DATABASE_URL/,
        12_000,
      );
      expect(out).not.toContain('s3cret');
    },
    30_000,
  );

  it.each(ENTRIES)(
    '%s names an unreachable REDIS_URL within seconds',
    async (_name, entry) => {
      await expectRefusal(
        entry,
        { ...base(), REDIS_URL: `redis://127.0.0.1:${closed}` },
        /REDIS_URL redis:\/\/127\.0\.0\.1:\d+ does not answer \(.+\); check REDIS_URL/,
        12_000,
      );
    },
    30_000,
  );

  it('start:ingest names an unreachable CLICKHOUSE_URL within seconds (API and redirector ride a ClickHouse outage out)', async () => {
    await expectRefusal(
      'ingest/main.ts',
      { ...base(), CLICKHOUSE_URL: `http://127.0.0.1:${closed}` },
      /CLICKHOUSE_URL http:\/\/127\.0\.0\.1:\d+\/ does not answer \(.+\); check CLICKHOUSE_URL/,
      12_000,
    );
  }, 30_000);

  it('start:redirector names a REDIRECT_PORT another program holds, and stops', async () => {
    const taken = await freePort();
    const blocker: Server = createServer().listen(taken, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const outcome = await runToExit('redirector/main.ts', { ...base(), REDIRECT_PORT: String(taken) }, 30_000);
      expect(outcome.output).toContain(`REDIRECT_PORT ${taken} is in use; set REDIRECT_PORT`);
      expect(outcome.code, outcome.output).not.toBe(0);
      expect(outcome.output).not.toMatch(STACK_FRAME);
    } finally {
      blocker.close();
    }
  }, 40_000);

  it.each(ENTRIES)(
    '%s on a METRICS_PORT another program holds serves anyway, says so in one line, and takes the port once it is free',
    async (_name, entry) => {
      const taken = await freePort();
      const blocker: Server = createServer().listen(taken, '127.0.0.1');
      await new Promise((r) => blocker.once('listening', r));
      const [apiPort, redirectPort, healthPort] = [await freePort(), await freePort(), await freePort()];
      const env = {
        ...base(),
        API_PORT: String(apiPort),
        REDIRECT_PORT: String(redirectPort),
        INGEST_HEALTH_PORT: String(healthPort),
        METRICS_PORT: String(taken),
      };
      const port = { 'api/main.ts': apiPort, 'redirector/main.ts': redirectPort, 'ingest/main.ts': healthPort }[entry];
      let proc: ChildService | null = null;
      try {
        proc = await startProcess(entry, env, `http://127.0.0.1:${port}`);
        const inUse = proc
          .output()
          .split('\n')
          .filter((l) => l.includes(`METRICS_PORT ${taken} is in use`));
        expect(inUse, proc.output()).toHaveLength(1);
        expect(inUse[0]).toContain('serving without /metrics until it is free');
        expect(proc.output()).not.toMatch(STACK_FRAME);
        blocker.close();
        const p = proc;
        await until(async () => p.output().includes(`metrics on 127.0.0.1:${taken}/metrics`), 5_000, 100);
        const scrape = await send(taken, '/metrics');
        expect(scrape.status).toBe(200);
        expect(scrape.text).toContain('process_cpu_seconds_total');
        expect(proc.output().split(`METRICS_PORT ${taken} is in use`)).toHaveLength(2); // said once, not per retry
        expect(await proc.stop()).toBe(0);
      } finally {
        blocker.close();
        await proc?.stop('SIGKILL');
      }
    },
    60_000,
  );

  describe('admin changes reach every running redirector', () => {
    const procs: ChildService[] = [];
    let redirectPort = 0;
    // The admin CLI as an operator runs it next to a production deployment: the database only.
    const admin = (...args: string[]) => adminJson({ DATABASE_URL: db.url, DATA_DIR: join(dir, 'admin-data') }, ...args);
    const answers = async (code: string, host: string): Promise<number[]> =>
      (await Promise.all([1, 2, 3, 4].map(() => send(redirectPort, `/${code}`, { host, headers: { accept: 'text/html' } })))).map((r) => r.status);
    const within1s = async (check: () => Promise<boolean>): Promise<void> => {
      const t0 = Date.now();
      await until(check, 1_000, 20);
      expect(Date.now() - t0).toBeLessThan(1_000);
    };

    beforeAll(async () => {
      const apiPort = await freePort();
      redirectPort = await freePort();
      const env = productionEnv({
        databaseUrl: db.url,
        redisUrl: redisUrl!,
        redisPrefix: prefix,
        clickhouseUrl: ch.url,
        dataDir: join(dir, 'data'),
        apiPort,
        redirectPort,
      });
      procs.push(await startProcess('api/main.ts', env, `http://127.0.0.1:${apiPort}`));
      procs.push(await startProcess('redirector/main.ts', env, `http://127.0.0.1:${redirectPort}`));
    }, 90_000);

    afterAll(async () => {
      for (const p of procs.reverse()) await p.stop();
    });

    it('link archive and domain remove by the CLI change the redirectors’ answers within 1 s', async () => {
      const orgA = await admin('org', 'create', '--name', 'Entries A', '--plan', 'BUSINESS');
      const orgB = await admin('org', 'create', '--name', 'Entries B');
      const link = await admin('link', 'create', '--org', orgB.id!, '--url', 'https://example.com/b', '--by', 'ops@example.com');
      await admin('domain', 'add', '--org', orgA.id!, '--host', 'go.entries.test');
      // Both workers cache the link and the domain (several connections reach both).
      expect(await answers(link.shortCode!, 'sho.rt')).toEqual([302, 302, 302, 302]);
      expect(await answers(link.shortCode!, 'go.entries.test')).toEqual([404, 404, 404, 404]);

      await admin('domain', 'remove', '--org', orgA.id!, '--host', 'go.entries.test');
      await within1s(async () => (await answers(link.shortCode!, 'go.entries.test')).every((s) => s === 302));

      await admin('link', 'archive', '--org', orgB.id!, '--code', link.shortCode!);
      await within1s(async () => (await answers(link.shortCode!, 'sho.rt')).every((s) => s === 410));
    }, 60_000);
  });
});
