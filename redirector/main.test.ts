// Invariant: the production entry point is tested as a black box: `redirector/main.ts` runs as a
// real cluster (2 workers on one port) against a test database and the machine's Redis (unique
// prefix; skipped when Redis does not answer), with ClickHouse unreachable (events are spooled).
// Its metrics are read where operators read them: the primary's METRICS_PORT, never the redirect
// port, and the text passes `promtool check metrics` when promtool is installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisInvalidationBus } from '../shared/bus/redis-invalidation-bus.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from '../test/support/servers.ts';
import { send, until } from '../test/support/http-request.ts';
import { seedLink, seedOrg } from '../test/support/seed.ts';

const redisUrl = inject('realRedisUrl');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'redirector/main.ts'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe.skipIf(!redisUrl)('npm run start:redirector (cluster)', () => {
  let db: TestDatabase;
  const prefix = redisTestPrefix();
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(inject('embeddedPgUrl'));
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl!,
      REDIS_PREFIX: prefix,
      CLICKHOUSE_URL: 'http://127.0.0.1:9', // unreachable: hits go to the Redis spool
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_WORKERS: '2',
      DEFAULT_SHORT_DOMAIN: 'sho.rt',
      DATA_DIR: '.tmp/redirector-main-test',
    };
  });

  afterAll(async () => {
    await deleteRedisPrefix(redisUrl!, prefix);
    await db?.drop();
  });

  it('refuses to start without its servers, and on the uWS JS fallback', async () => {
    const noServers = start({ REDIRECT_PORT: '0' });
    expect(await noServers.exited).toBe(2);
    expect(noServers.output()).toContain('needs DATABASE_URL, REDIS_URL (or REDIS_CLUSTER_NODES), CLICKHOUSE_URL');
    const fallback = start({ ...env, REDIRECT_PORT: String(await freePort()), UWS_USE_FALLBACK: '1' });
    expect(await fallback.exited).toBe(3);
    expect(fallback.output()).toContain('refusing to run on the JS fallback');
  });

  it('two workers share the port, serve redirects, evict on the Redis bus, merge metrics on METRICS_PORT, stop on SIGTERM', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const proc = start({ ...env, REDIRECT_PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' });
    try {
      await until(() => (proc.output().match(/listening on/g) ?? []).length === 2, 60_000, 100);
      const org = await seedOrg(db.sql);
      const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://cluster.example/' });
      for (let i = 0; i < 20; i++) expect((await send(port, `/${shortCode}`)).headers.location).toBe('https://cluster.example/');

      await db.sql`update links set url = 'https://cluster.example/v2' where short_code = ${shortCode}`;
      const redis = new Redis(redisUrl!);
      const bus = new RedisInvalidationBus(redis, prefix);
      await bus.publish({ kind: 'link', shortCode });
      await bus.close();
      redis.disconnect();
      await until(async () => {
        const all = await Promise.all(Array.from({ length: 10 }, () => send(port, `/${shortCode}`)));
        return all.every((r) => r.headers.location === 'https://cluster.example/v2');
      }, 1_000);

      // The public port answers /metrics as it answers any unknown code.
      const publicMetrics = await send(port, '/metrics');
      expect({ status: publicMetrics.status, body: JSON.parse(publicMetrics.text) as unknown }).toEqual({
        status: 404,
        body: { errors: [{ code: 'EN001', message: "Short URL with shortCode 'metrics' not found" }] },
      });

      // ClickHouse is unreachable: the workers' inserts fail and their batches go to the spool;
      // the primary's METRICS_PORT shows it, summed over both workers.
      const sample = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
      let metrics = '';
      await until(
        async () => {
          metrics = (await send(metricsPort, '/metrics')).text;
          return sample(metrics, 'shortlink_analytics_insert_failures_total') > 0 && sample(metrics, 'shortlink_analytics_spooled_batches_total') > 0;
        },
        15_000,
        250,
      );
      expect(sample(metrics, 'redirector_workers')).toBe(2);
      expect(sample(metrics, 'redirector_requests_total{outcome="redirect"}')).toBeGreaterThanOrEqual(30);
      expect(sample(metrics, 'shortlink_analytics_spooled_bytes_total')).toBeGreaterThan(0);
      expect(sample(metrics, 'shortlink_analytics_events_dropped_total{reason="queue_full"}')).toBe(0);
      expect(metrics).toMatch(/^process_cpu_user_seconds_total \S+$/m);
      expect(metrics).toMatch(/^nodejs_heap_size_used_bytes \S+$/m);
      if (spawnSync('which', ['promtool']).status === 0) {
        // Exit 1 would be a text promtool cannot parse; 3 is lint findings. prom-client's own
        // default gauges nodejs_active_{handles,requests,resources}_total are the only ones allowed.
        const lint = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
        const findings = `${lint.stdout}${lint.stderr}`
          .split('\n')
          .filter((l) => l !== '' && !/^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/.test(l));
        expect({ status: lint.status === 3 && findings.length === 0 ? 0 : lint.status, findings }).toEqual({ status: 0, findings: [] });
      }
    } finally {
      proc.child.kill('SIGTERM');
    }
    const code = await proc.exited;
    expect({ code, output: proc.output().replace(/.*ClickHouse schema not ensured.*\n/g, '') }).toMatchObject({ code: 0 });
  }, 120_000);
});
