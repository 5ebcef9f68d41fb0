// Invariant: TEST-ONLY. A real PgBouncer (Debian's pgbouncer) in transaction mode in front of the
// machine's Postgres, on a free loopback port, trusting the `postgres` user, with
// default_pool_size server connections per database at most. It runs as the `postgres` user
// (PgBouncer refuses root), so its files live in a folder of its own under the system's temp
// folder (the checkout may be in a folder only root can enter), removed by stop().
// serverConnections() reads SHOW POOLS through its admin console (psql: the console speaks only
// the simple protocol).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../shared/net/free-port.ts';

const run = promisify(execFile);

export interface PgBouncer {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** Server connections the pool of `database` holds now (active, idle, used, tested, logging in). */
  serverConnections(database: string): Promise<number>;
  stop(): Promise<void>;
}

export async function canStartPgBouncer(): Promise<boolean> {
  try {
    await run('pgbouncer', ['--version']);
    await run('psql', ['--version']);
    return true;
  } catch {
    return false;
  }
}

export async function startPgBouncer(o: { upstreamPort?: number; poolSize: number }): Promise<PgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n', { mode: 0o644 });
  writeFileSync(
    ini,
    `[databases]
* = host=127.0.0.1 port=${o.upstreamPort ?? 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
default_pool_size = ${o.poolSize}
reserve_pool_size = 0
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits
admin_users = postgres
logfile = ${join(dir, 'pgbouncer.log')}
`,
    { mode: 0o644 },
  );
  const child: ChildProcess = spawn('pgbouncer', ['-u', 'postgres', ini], { stdio: 'ignore' });
  const console = (sql: string) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'pgbouncer', '-At', '-F', '\t', '-c', sql]);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await console('show version');
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`pgbouncer did not start (exit ${child.exitCode}, log: ${join(dir, 'pgbouncer.log')})`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    serverConnections: async (database) => {
      const { stdout } = await console('show pools');
      // database, user, cl_active, cl_waiting, cl_active_cancel_req, cl_waiting_cancel_req,
      // sv_active, sv_active_cancel, sv_being_canceled, sv_idle, sv_used, sv_tested, sv_login, …
      let n = 0;
      for (const line of stdout.split('\n')) {
        const f = line.split('\t');
        if (f[0] !== database) continue;
        for (const i of [6, 7, 8, 9, 10, 11, 12]) n += Number(f[i] ?? 0);
      }
      return n;
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
