// The operations kit against the running production topology: `start:api`, `start:redirector`
// (2 workers), `start:ingest` and `start:dashboard` over the machine's Postgres and Redis and the
// ClickHouse stand-in. The Kubernetes probes (paths as deploy/k8s renders them) answer 200 on each
// role's listener. Every metric a Grafana panel (deploy/grafana/shortlink.json) queries is exported
// by one of the processes' /metrics (a histogram through its series), and, where Debian's
// Prometheus server is installed (CI has it, with promtool), a Prometheus scraping the three
// evaluates every panel's query and the core panels show the clicks made.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { dashboardQueries, exportedAs, exposedTypes, metricNames, readDashboard, withIntervals } from './support/grafana-dashboard.ts';
import { send, until } from './support/http-request.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from './support/servers.ts';
import { adminJson, apiClient, freePort, productionEnv, startProcess, type ChildService } from './support/service-process.ts';
import { removeTestDir } from './support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const redisUrl = inject('realRedisUrl');
const havePrometheus = spawnSync('which', ['prometheus']).status === 0;
const haveKubectl = spawnSync('kubectl', ['version', '--client']).status === 0;
/** The processes that serve /metrics. */
const ROLES = ['api', 'redirector', 'ingest'] as const;

describe.skipIf(!pgUrl || !redisUrl)('the operations kit on the production topology', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'ops-kit-'));
  chmodSync(dir, 0o755);
  const prefix = redisTestPrefix();
  const queries = dashboardQueries(readDashboard());
  let db: TestDatabase;
  let ch: FakeClickHouse;
  const procs: ChildService[] = [];
  const metricsPorts: Record<string, number> = {};
  /** Each role's listener, where its probes are asked. */
  const listeners: Record<string, number> = {};
  let redirectPort = 0;

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    const apiPort = await freePort();
    redirectPort = await freePort();
    const healthPort = await freePort();
    const dashboardPort = await freePort();
    const env = productionEnv(
      { databaseUrl: db.url, redisUrl: redisUrl!, redisPrefix: prefix, clickhouseUrl: ch.url, dataDir: join(dir, 'data'), apiPort, redirectPort },
      { INGEST_HEALTH_PORT: String(healthPort), DASHBOARD_PORT: String(dashboardPort), DASHBOARD_HOST: '127.0.0.1', TLS_ASK_PORT: '0' },
    );
    Object.assign(listeners, { api: apiPort, redirector: redirectPort, ingest: healthPort, dashboard: dashboardPort });
    procs.push(await startProcess('api/main.ts', env, `http://127.0.0.1:${apiPort}`));
    procs.push(await startProcess('redirector/main.ts', env, `http://127.0.0.1:${redirectPort}`));
    procs.push(await startProcess('ingest/main.ts', env, `http://127.0.0.1:${healthPort}`));
    procs.push(await startProcess('dashboard/main.ts', env, `http://127.0.0.1:${dashboardPort}`));
    for (const [i, role] of ROLES.entries()) {
      await until(async () => /metrics on 127\.0\.0\.1:\d+\/metrics/.test(procs[i]!.output()), 10_000, 50);
      metricsPorts[role] = Number(/metrics on 127\.0\.0\.1:(\d+)\/metrics/.exec(procs[i]!.output())![1]);
    }
    const org = await adminJson(env, 'org', 'create', '--name', 'Grafana', '--plan', 'PRO');
    const key = await adminJson(env, 'key', 'create', '--org', org.id!, '--label', 'grafana');
    expect((await apiClient(`http://127.0.0.1:${apiPort}`, key.key!).save({ url: 'https://example.com/g', shortCode: 'grafana-link' })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    for (const p of procs.reverse()) await p.stop();
    await ch?.close();
    await db?.drop();
    await deleteRedisPrefix(redisUrl!, prefix);
    removeTestDir(dir);
  });

  const clicks = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) expect((await send(redirectPort, '/grafana-link', { host: 'sho.rt' })).status).toBe(302);
  };

  it.skipIf(!haveKubectl)('the Kubernetes readiness and liveness probes answer 200 on each role’s listener', async () => {
    const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', 'deploy/k8s'], { encoding: 'utf8' })).map((d) => d.toJS());
    const deployments = rendered.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(Object.keys(listeners).sort());
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        const r = await fetch(`http://127.0.0.1:${listeners[d.metadata.name]}${probe.httpGet.path}`);
        expect(r.status, `${d.metadata.name} ${probe.httpGet.path}`).toBe(200);
      }
    }
  });

  it('every metric a panel queries is exported by a running process', async () => {
    await clicks(3);
    const types = new Map<string, string>();
    for (const role of ROLES) {
      const text = await (await fetch(`http://127.0.0.1:${metricsPorts[role]}/metrics`)).text();
      for (const [name, type] of exposedTypes(text)) types.set(name, type);
    }
    const missing = queries.flatMap((q) =>
      metricNames(q.expr)
        .filter((name) => exportedAs(name, types) === null)
        .map((name) => `${q.panel}: ${name}`),
    );
    expect(missing).toEqual([]);
    expect(queries.length).toBeGreaterThan(30);
  });

  describe.skipIf(!havePrometheus)('through a Prometheus scraping the three processes', () => {
    let prometheus: ChildProcess;
    let promUrl = '';
    let promLog = '';

    beforeAll(async () => {
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      const config = {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        scrape_configs: ROLES.map((role) => ({ job_name: role, static_configs: [{ targets: [`127.0.0.1:${metricsPorts[role]}`] }] })),
      };
      writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
      prometheus = spawn(
        'prometheus',
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'tsdb')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prometheus.stderr!.on('data', (d) => (promLog += String(d)));
      // Every target up and scraped a few times.
      await until(
        async () => {
          const r = await instant('count_over_time(process_cpu_seconds_total[30s])').catch(() => null);
          return r !== null && r.length === 3 && r.every((s) => Number(s.value[1]) >= 4);
        },
        30_000,
        250,
      );
    }, 60_000);

    afterAll(() => {
      prometheus?.kill('SIGTERM');
    });

    async function instant(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
      const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await r.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error}\n${promLog}`);
      return body.data!.result;
    }

    it('evaluates every panel’s query, and the core panels show the traffic', async () => {
      await clicks(20);
      // The clicks reach ClickHouse (stored, counted in usage) and are scraped.
      await until(async () => (await instant('sum(shortlink_analytics_events_inserted_total)'))[0]?.value[1] !== '0', 15_000, 250);
      await new Promise((r) => setTimeout(r, 2_500));
      const results = new Map<string, number>();
      for (const q of queries) results.set(`${q.panel}: ${q.expr}`, (await instant(withIntervals(q.expr, '30s'))).length);
      const of = (panel: string): number[] => [...results].filter(([k]) => k.startsWith(`${panel}: `)).map(([, n]) => n);
      for (const panel of [
        'Redirect rate',
        'Outcomes',
        'Lookups answered, by tier',
        'Events: handed off, stored, spooled, dropped',
        'CPU',
        'Resident memory',
        'Redirector workers',
      ])
        expect(of(panel)[0], panel).toBeGreaterThan(0);
      const [rate] = await instant(withIntervals('sum(increase(redirector_requests_total{outcome="redirect"}[$__range]))', '60s'));
      expect(Number(rate?.value[1])).toBeGreaterThan(10);
    }, 60_000);
  });
});
