// Invariant: black-box tests talk to a real booted service (bin/start.ts in a child process) over
// HTTP, and drive the dashboard-only operations through the real admin CLI with the same
// environment. Every process started here is stopped by stop().
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../shared/net/free-port.ts';
import { removeTestDir } from './test-dirs.ts';

const execFileP = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

export { freePort };

export function tempDataDir(): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'data-'));
  chmodSync(dir, 0o755);
  return dir;
}

export interface ServiceProcess {
  api: string;
  redirect: string;
  /** The dashboard's origin (DASHBOARD_PUBLIC_URL), e.g. http://127.0.0.1:PORT. */
  dashboard: string;
  env: NodeJS.ProcessEnv;
  output(): string;
  /** Runs the admin CLI with --json and returns the parsed object; throws with stderr on failure. */
  admin<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Runs the admin CLI and returns its raw outcome, for error-path tests. */
  adminRaw(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function waitHealthy(url: string, child: ChildProcess, out: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${out()}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not ready within ${timeoutMs} ms:\n${out()}`);
}

export async function startService(extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
  const [apiPort, redirectPort, dashboardPort] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: extraEnv.DATA_DIR ?? tempDataDir(),
    API_PORT: String(apiPort),
    REDIRECT_PORT: String(redirectPort),
    API_HOST: '127.0.0.1',
    REDIRECT_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DEFAULT_SHORT_DOMAIN: 'sho.rt',
    REDIRECT_WORKERS: '1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    DASHBOARD_PORT: String(dashboardPort),
    DASHBOARD_HOST: '127.0.0.1',
    DASHBOARD_PUBLIC_URL: `http://127.0.0.1:${dashboardPort}`,
    TLS_ASK_PORT: '0',
    ...extraEnv,
  };
  const api = `http://127.0.0.1:${apiPort}`;
  const dashboard = env.DASHBOARD_PUBLIC_URL ?? `http://127.0.0.1:${dashboardPort}`;
  const redirect = `http://127.0.0.1:${redirectPort}`;
  const proc = await startProcess('bin/start.ts', env, [api, redirect, `http://127.0.0.1:${env.DASHBOARD_PORT}`]);

  const adminRaw = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: ROOT, env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  return {
    api,
    redirect,
    dashboard,
    env,
    output: proc.output,
    adminRaw,
    admin: async <T>(...args: string[]) => {
      const r = await adminRaw(...args, '--json');
      if (r.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
    stop: proc.stop,
  };
}

/** Removes a test folder and the embedded clusters made for it (test-dirs.ts). */
export function removeDir(dir: string | undefined): void {
  removeTestDir(dir);
}

export interface Envelope<T = unknown> {
  status: number;
  headers: Headers;
  body: { response?: T; errors?: { code: string; message: string; details?: Record<string, unknown> }[] };
}

/** A tiny API client for tests: JSON in, envelope out. */
export function apiClient(base: string, key: string | null) {
  const call = async <T>(method: string, path: string, body?: unknown, raw?: string, headers: Record<string, string> = {}): Promise<Envelope<T>> => {
    const h: Record<string, string> = { ...headers };
    if (key !== null) h['x-api-key'] = key;
    let payload: string | undefined;
    if (raw !== undefined) payload = raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !h['content-type']) h['content-type'] = 'application/json';
    const r = await fetch(`${base}${path}`, { method, headers: h, body: payload });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : {} };
  };
  return {
    save: <T = Record<string, unknown>>(body: unknown) => call<T>('POST', '/link/external/v1/shortenedUrl/save', body),
    saveRaw: (raw: string, headers?: Record<string, string>) => call('POST', '/link/external/v1/shortenedUrl/save', undefined, raw, headers),
    bulk: <T = Record<string, unknown>>(body: unknown) => call<T>('POST', '/link/external/v1/shortenedUrl/bulkSave', body),
    resolve: <T = Record<string, unknown>>(body: unknown) => call<T>('POST', '/link/external/v1/shortenedUrl/resolve', body),
    list: <T = Record<string, unknown>>(params: Record<string, string | number> = {}) =>
      call<T>('GET', `/link/external/v1/shortenedUrl?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`),
    get: <T = Record<string, unknown>>(path: string) => call<T>('GET', path),
    post: <T = Record<string, unknown>>(path: string, body: unknown) => call<T>('POST', path, body),
  };
}

export interface ProductionServers {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  clickhouseUrl: string;
  dataDir: string;
  apiPort: number;
  redirectPort: number;
}

/** The environment of the three production processes (2 redirector workers) on loopback. */
export function productionEnv(s: ProductionServers, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: s.databaseUrl,
    REDIS_URL: s.redisUrl,
    REDIS_PREFIX: s.redisPrefix,
    CLICKHOUSE_URL: s.clickhouseUrl,
    DATA_DIR: s.dataDir,
    DEFAULT_SHORT_DOMAIN: 'sho.rt',
    LOG_LEVEL: 'info',
    API_PORT: String(s.apiPort),
    API_HOST: '127.0.0.1',
    REDIRECT_PORT: String(s.redirectPort),
    REDIRECT_HOST: '127.0.0.1',
    REDIRECT_WORKERS: '2',
    INGEST_HEALTH_PORT: '0',
    INGEST_HEALTH_HOST: '127.0.0.1',
    // Each process picks a free metrics port and logs it (`metrics on 127.0.0.1:<port>/metrics`).
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    ...extra,
  };
}

/** Runs the admin CLI with --json in `env` and returns its JSON object. */
export async function adminJson(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Record<string, string>> {
  const { stdout } = await execFileP(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args, '--json'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
  });
  return JSON.parse(stdout) as Record<string, string>;
}

export interface ChildService {
  readonly pid: number;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartProcessOptions {
  /**
   * Run as the leader of its own process group, and stop() signals the whole group, as a
   * terminal's Ctrl-C does.
   */
  processGroup?: boolean;
}

/** Starts one entry point (e.g. 'api/main.ts') and waits until every given base URL answers /readyz 200. */
export async function startProcess(
  entry: string,
  env: NodeJS.ProcessEnv,
  healthUrls: string | readonly string[] = [],
  options: StartProcessOptions = {},
): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup === true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  for (const url of typeof healthUrls === 'string' ? [healthUrls] : healthUrls) await waitHealthy(url, child, () => out);
  return {
    pid: child.pid ?? 0,
    output: () => out,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      if (options.processGroup) process.kill(-child.pid!, signal);
      else child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface Outcome {
  code: number | null;
  output: string;
}

/** Runs one entry point until it exits by itself (a start-up failure); SIGKILL after `timeoutMs`. */
export function runToExit(entry: string, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
