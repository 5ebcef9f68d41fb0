// Invariant: TEST-ONLY. The parts a fault scenario stages and kills: a redis-server of our own on a
// spare port (append-only file, fsync always, so a SIGKILL loses nothing it acknowledged), the
// three production processes (each in its own process group, so a group-wide signal reaches a
// cluster's primary and workers at once), and wrk with a Lua counter. Nothing here touches the
// machine's shared Redis or Postgres servers beyond this run's own database.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../shared/net/free-port.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface OwnRedis {
  url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
}

export async function startOwnRedis(dir: string): Promise<OwnRedis> {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await answers(port)) return;
      await sleep(50);
    }
    throw new Error('own redis-server did not start');
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    kill: async () => {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
}

async function answers(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.write('PING\r\n');
    });
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });
}

export interface GroupProcess {
  readonly pid: number;
  output(): string;
  /** Sends `signal` to the whole process group (primary and workers). */
  signalGroup(signal: NodeJS.Signals): void;
  signal(signal: NodeJS.Signals): void;
  exited(): Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts an entry point as the leader of its own process group; waits for `healthUrl` and for `readyLine` printed `readyCount` times. */
export async function startGroup(
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: { healthUrl?: string; readyLine?: string; readyCount?: number } = {},
): Promise<GroupProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}:\n${out}`);
    const lines = ready.readyLine ? out.split(ready.readyLine).length - 1 : 0;
    let healthy = ready.healthUrl === undefined;
    if (!healthy) {
      try {
        healthy = (await fetch(`${ready.healthUrl}/healthz`)).ok;
      } catch {
        /* not up yet */
      }
    }
    if (healthy && lines >= (ready.readyCount ?? (ready.readyLine ? 1 : 0))) break;
    if (Date.now() > deadline) throw new Error(`${entry} not ready:\n${out}`);
    await sleep(100);
  }
  return {
    pid: child.pid!,
    output: () => out,
    signalGroup: (signal) => process.kill(-child.pid!, signal),
    signal: (signal) => child.kill(signal),
    exited: () => exit,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 30_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export interface WrkResult {
  requests: number;
  found: number;
  other: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
}

/**
 * wrk against one URL for `seconds`, counting every response; loopback only, bounded in time.
 * With `delayMs`, each connection waits that long between requests (at most connections × 1000 /
 * delayMs requests a second).
 */
export function runWrk(url: string, seconds: number, connections = 16, delayMs?: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const counter = join(import.meta.dirname, 'count.lua');
    const script = delayMs === undefined ? counter : join(import.meta.dirname, 'paced.lua');
    const child = spawn('wrk', ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '5s', '-H', 'Host: sho.rt', '-s', script, url], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WRK_COUNT_LUA: counter, WRK_DELAY_MS: String(delayMs ?? 0) },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    // 'close', not 'exit': the output is whole only once wrk's pipes have closed.
    child.once('close', () => {
      const m = /RESULT requests=(\d+) found=(\d+) other=(\d+) connect=(\d+) read=(\d+) write=(\d+) timeout=(\d+)/.exec(out);
      if (!m) return reject(new Error(`wrk printed no RESULT:\n${out}`));
      const [requests, found, other, connect, read, write, timeout] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
      resolve({ requests, found, other, connect, read, write, timeout });
    });
  });
}
