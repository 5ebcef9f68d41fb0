// The deploy step `migrate` (the Kubernetes Jobs' command) as a process: `migrate postgres` brings
// a fresh database to the last migration and a second run changes nothing; `migrate clickhouse`
// with CLICKHOUSE_CLUSTER sends a cluster exactly the printed schema (recorded through the cluster
// proxy in front of the chDB stand-in), and a second run sends no DDL; `clickhouse --print` is
// deploy/clickhouse-cluster.sql; a missing setting is one line naming it, exit 2.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { analyticsSchema, schemaStatements } from '../shared/analytics/clickhouse/analytics-schema.ts';
import { rollupViewT0 } from '../shared/analytics/clickhouse/rollup-table.ts';
import { migrationFiles } from '../shared/db/migrate.ts';
import { startClusterProxy, type ClusterProxy } from './support/cluster-clickhouse-proxy.ts';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { createTestDatabase, type TestDatabase } from './support/servers.ts';
import { removeTestDir } from './support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const ROOT = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(ROOT, '.tmp', 'migrate-'));
chmodSync(dir, 0o755);

function migrate(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/migrate.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

afterAll(() => removeTestDir(dir));

describe('migrate: one line naming what is missing, exit 2', () => {
  it.each([
    [['postgres'], {}, '[migrate] migrate postgres needs DATABASE_URL'],
    [['clickhouse'], {}, '[migrate] migrate clickhouse needs CLICKHOUSE_URL'],
    [
      ['clickhouse'],
      { CLICKHOUSE_URL: 'http://127.0.0.1:1', CLICKHOUSE_CLUSTER: 'bad-name' },
      'CLICKHOUSE_CLUSTER: must be a cluster name: letters, digits and _',
    ],
  ] as const)('%j', async (args, env, message) => {
    const r = await migrate([...args], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('clickhouse --print needs a cluster name, and prints deploy/clickhouse-cluster.sql for `events`', async () => {
    expect((await migrate(['clickhouse', '--print'], {})).code).toBe(2);
    const printed = await migrate(['clickhouse', '--print'], { CLICKHOUSE_CLUSTER: 'events' });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(readFileSync(join(ROOT, 'deploy', 'clickhouse-cluster.sql'), 'utf8'));
    const other = await migrate(['clickhouse', '--print', '--cluster', 'analytics_eu'], {});
    expect(other.stdout).toContain('CREATE TABLE IF NOT EXISTS analytics_events ON CLUSTER analytics_eu AS analytics_events_local');
  });
});

describe.skipIf(!pgUrl)('migrate against servers', () => {
  let db: TestDatabase;
  let ch: FakeClickHouse;
  let proxy: ClusterProxy;

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    proxy = await startClusterProxy(ch.url, 'events');
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await ch?.close();
    await db?.drop();
  });

  it('postgres: a fresh database reaches the last migration, through DATABASE_DIRECT_URL beside a pooler; a second run is a no-op', async () => {
    const last = migrationFiles().at(-1)!;
    const first = await migrate(['postgres'], { DATABASE_URL: db.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: db.url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`: ${migrationFiles().length} migrations applied, the last ${last}\\n$`));
    const again = await migrate(['postgres'], { DATABASE_URL: db.url });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout); // the same database, the same URL
    const closed = await migrate(['postgres'], { DATABASE_URL: db.url, DATABASE_DIRECT_URL: 'postgres://u:secret@127.0.0.1:1/x' });
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/DATABASE_DIRECT_URL postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x does not answer/);
  }, 60_000);

  it('clickhouse with CLICKHOUSE_CLUSTER: the printed schema, ON CLUSTER, in order; a second run sends no DDL', async () => {
    const env = { CLICKHOUSE_URL: proxy.url, CLICKHOUSE_CLUSTER: 'events', CLICKHOUSE_INSERT_QUORUM: '2' };
    const first = await migrate(['clickhouse'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^ClickHouse http:\/\/127\.0\.0\.1:\d+\/: the analytics tables and the rollup's view exist on the cluster events\n$/);
    const ddl = proxy.statements.map((s) => s.sql).filter((sql) => /^(CREATE|ALTER|DROP)\b/.test(sql));
    const t0 = rollupViewT0(ddl.find((sql) => sql.includes('MATERIALIZED VIEW')) ?? '');
    expect(t0).not.toBeNull();
    expect(ddl).toEqual(schemaStatements(analyticsSchema({ name: 'events', insertQuorum: 2 }), t0!).map((s) => s.trim()));
    proxy.clear();
    const again = await migrate(['clickhouse'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(proxy.statements.filter((s) => /^(CREATE|ALTER|DROP)\b/.test(s.sql))).toEqual([]);
  }, 60_000);
});
