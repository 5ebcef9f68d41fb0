// Invariant: the redirect benchmark is self-contained, loopback-only and bounded in time: it
// starts an embedded Postgres in a temp dir, seeds 100k links by SQL, starts the targets pinned
// to core 0 (a bare uWS 302 server and redirectors in production mode) and the load generators
// pinned to core 1, runs interleaved bare/redirector rounds per scenario, measures each target's
// process CPU per answered request from /proc, prints a table, writes JSON under bench/results/,
// and cleans up (processes, temp dir, Redis prefix) even on failure.
// Rows: whole-hot is the main one: `npm start` itself (bin/start.ts: redirector, API, the real
// write buffer and chDB in one process), every click stored, counted in chDB after it exits and
// checked exactly once. production is `npm run start:redirector` (one worker) with its real event
// path: Native inserts over HTTP to a ClickHouse endpoint (chDB behind ClickHouse's HTTP
// interface) on core 1, traffic from 10,000 client addresses behind a trusted proxy with 500
// User-Agents, checked exactly once the same way. The other rows use a sink that counts and drops
// hits (a diagnostic of the redirect path alone): hot (LRU hit), warm (Redis hit,
// LINK_CACHE_ENTRIES=0; skipped without Redis), cold (Postgres: no LRU, no Redis), mixed-zipf
// (Zipf over 100k links, LRU on, primed), unknown (404s).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { connect } from '../shared/db/database.ts';
import { openEmbeddedPostgres } from '../shared/db/embedded-postgres.ts';
import { migrate } from '../shared/db/migrate.ts';
import { hashPassword } from '../shared/accounts/passwords.ts';
import { loadPasswordCookieSecret, PasswordCookies } from '../shared/links/password-cookie.ts';
import { freePort } from '../shared/net/free-port.ts';
import { progressLine } from '../shared/process/progress-line.ts';
import { deleteRedisPrefix } from '../test/support/servers.ts';
import { zipfSampler } from './load/traffic.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LINKS = 100_000;
const HOT_LINKS = 1_000;
const CONNECTIONS = 64;
const ROUND_SECONDS = 4;
const WARMUP_SECONDS = 2;
const WRK_PAIRS = 4;
const AUTOCANNON_PAIRS = 2;
const DEADLINE_MS = 11 * 60_000;
export const HOST = 'sho.rt';
/**
 * The fixed-load production row: every connection waits 3 ms before each request (64 connections:
 * ≈ 15–20k requests/s with wrk's millisecond timer), well below what either server answers, so
 * CPU per request and latency compare at the same load rather than at each one's saturation.
 */
const FIXED_LOAD_DELAY_MS = 3;
export const REDIS_URL = 'redis://127.0.0.1:6379';

type Tool = 'wrk' | 'autocannon';
type Target = 'bare' | 'redirector';
/** Where a row's hits go: stored in chDB in the process, sent to a ClickHouse endpoint, or counted and dropped. */
type Sink = 'chdb' | 'http' | 'discard';
/** wrk request scripts: paths only, or paths with X-Forwarded-For and User-Agent per request. */
type Script = 'paths' | 'clients' | 'cookies';
const SCRIPT_FILES: Readonly<Record<Script, string>> = { paths: 'wrk-paths.lua', clients: 'wrk-clients.lua', cookies: 'wrk-cookies.lua' };

interface RoundResult {
  scenario: string;
  tool: Tool;
  target: Target;
  round: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  unexpectedStatus: number;
  /** Process CPU (user + system, every thread and child) per answered request, µs. */
  cpuUsPerReq: number;
  /** Hits handed to the sink during the round (redirector only). */
  hits?: number;
  /**
   * One hit per answered click: hits - requests lies in [0, connections] (requests still in
   * flight when the load generator stops are answered and recorded but not counted by it).
   */
  hitsOk?: boolean;
}

/** On a terminal: which round of how many runs now (log lines erase it first). */
const progress = progressLine({ delayMs: 0 });
const log = (m: string): void => {
  progress.clear();
  process.stderr.write(`[bench] ${m}\n`);
};
const children: ChildProcess[] = [];

/** Stops every process the bench started (SIGTERM, then SIGKILL after 300 ms). */
export async function stopChildren(): Promise<void> {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
let haveWrk = false;
const cores = availableParallelism();
const haveTaskset = spawnSync('which', ['taskset']).status === 0;
const pin = (core: number | null, cmd: string[]): string[] => (core !== null && haveTaskset && cores >= 2 ? ['taskset', '-c', String(core), ...cmd] : cmd);
const SERVER_CORE = 0;
export const LOAD_CORE = 1;

interface Server {
  port: number;
  /** METRICS_PORT of a redirector target (its hand-off counter), 0 for bare. */
  metricsPort: number;
  proc: ChildProcess;
}

/**
 * Starts `node --import tsx <args>` pinned to `core` (at the lowest CPU priority when `yieldCore`);
 * ready when it prints `READY <port> [<metrics port>]`.
 */
export function startPrinting(core: number, args: string[], env: Record<string, string>, yieldCore = false): Promise<Server> {
  const node = [process.execPath, '--import', 'tsx', ...args];
  const [cmd, ...rest] = pin(core, yieldCore ? ['nice', '-n', '19', ...node] : node);
  const proc = spawn(cmd!, rest, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\d+)(?: (\d+))?\n/.exec(buf);
      if (m) resolve({ port: Number(m[1]), metricsPort: Number(m[2] ?? 0), proc });
    });
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

function startTarget(mode: 'bare' | 'redirector', env: Record<string, string>): Promise<Server> {
  return startPrinting(SERVER_CORE, [join(ROOT, 'bench', 'bench-server.ts'), mode], env);
}

/**
 * Starts a service entry (`npm start`'s bin/start.ts, the production redirector, ingest) pinned to
 * `core` (null: not pinned); ready when /healthz answers 200 on `port`.
 */
export async function startEntry(entry: string, env: Record<string, string>, port: number, core: number | null = SERVER_CORE): Promise<ChildProcess> {
  const [cmd, ...rest] = pin(core, [process.execPath, '--import', 'tsx', join(ROOT, entry)]);
  const proc = spawn(cmd!, rest, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(proc);
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${entry} exited with ${proc.exitCode}: ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return proc;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${entry} did not answer /healthz within 60 s: ${stderr}`);
}

/** Writes a bench's results as bench/results/<name>-<time>.json, with the date and Node version; the file's path. */
export function writeResults(name: string, results: Record<string, unknown>): string {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString();
  const file = join(dir, `${name}-${now.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ date: now, node: process.version, ...results }, null, 2)}\n`);
  return file;
}

/** Sends SIGTERM and waits for the exit (the process flushes its events first). */
export function stopAndWait(proc: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      resolve(null);
    }, timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
    proc.kill('SIGTERM');
  });
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

/** The process and its descendants (the production redirector's workers, a Postgres cluster's backends). */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i] as number;
    try {
      for (const t of readdirSync(`/proc/${p}/task`)) {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) out.push(Number(c));
      }
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * User + system CPU of the process tree, in µs (every thread; from /proc/<pid>/stat), descendants
 * that have exited included once their parent has reaped them (its cutime and cstime): a Postgres
 * backend that ends between two readings still counts.
 */
export function cpuMicros(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return (ticks * 1e6) / CLOCK_TICKS;
}

/** Events in the chDB store at `dataPath` (counted in a process of its own: chDB opens one path per process). */
async function countStored(dataPath: string): Promise<{ rows: number; distinct: number }> {
  const out = await run([process.execPath, '--import', 'tsx', join(ROOT, 'bench', 'count-stored-events.ts'), dataPath]);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as { rows: number; distinct: number };
}

/** Counters' values, each summed over its label sets, from one scrape of a Prometheus endpoint. */
export async function metricValues(metricsPort: number, names: readonly string[]): Promise<number[]> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return names.map((name) => {
    let sum = 0;
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
    return sum;
  });
}

/** A counter's value (summed over its label sets) on a Prometheus endpoint. */
export async function metricValue(metricsPort: number, name: string): Promise<number> {
  return (await metricValues(metricsPort, [name]))[0] as number;
}

function run(cmd: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const [c, ...a] = cmd;
    const p = spawn(c!, a, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    children.push(p);
    let out = '';
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd.join(' ')} exited ${code}: ${err.slice(0, 500)}`))));
  });
}

type LoadResult = Omit<RoundResult, 'scenario' | 'target' | 'round' | 'tool' | 'unexpectedStatus' | 'cpuUsPerReq'> & {
  statuses: Record<string, number> | null;
  non2xx3xx: number;
};

/**
 * One load round. `offered`: a fixed offered load, by a delay before each request on every
 * connection (delayMs) or by a rate (requests a second; wrk only, see wrk-common.lua); and the
 * connections (default the redirect rows' 64).
 */
export async function runLoad(
  tool: Tool,
  port: number,
  pathsFile: string,
  seconds: number,
  script: Script = 'paths',
  offered: { delayMs?: number | undefined; rate?: number; connections?: number; headers?: readonly string[] } = {},
): Promise<LoadResult> {
  const connections = offered.connections ?? CONNECTIONS;
  if (tool === 'wrk') {
    const out = await run(
      pin(LOAD_CORE, [
        'wrk',
        '-t1',
        `-c${connections}`,
        `-d${seconds}s`,
        '-H',
        `Host: ${HOST}`,
        ...(offered.headers ?? []).flatMap((h) => ['-H', h]),
        '-s',
        join(ROOT, 'bench', SCRIPT_FILES[script]),
        `http://127.0.0.1:${port}`,
        '--',
        pathsFile,
      ]),
      {
        ...(offered.delayMs === undefined ? {} : { WRK_DELAY_MS: String(offered.delayMs) }),
        ...(offered.rate === undefined ? {} : { WRK_RATE: String(offered.rate) }),
      },
    );
    const line = out.split('\n').find((l) => l.startsWith('JSON '));
    if (!line) throw new Error(`wrk printed no summary: ${out.slice(0, 300)}`);
    const j = JSON.parse(line.slice(5)) as { requests: number; durationUs: number; p50Us: number; p99Us: number; socketErrors: number; non2xx3xx: number };
    return {
      requests: j.requests,
      rps: j.requests / (j.durationUs / 1e6),
      p50Ms: j.p50Us / 1000,
      p99Ms: j.p99Us / 1000,
      errors: j.socketErrors,
      statuses: null,
      non2xx3xx: j.non2xx3xx,
    };
  }
  const out = await run(
    pin(LOAD_CORE, [
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench', 'autocannon-runner.ts'),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, host: HOST, pathsFile, connections, durationSeconds: seconds }),
    ]),
  );
  const j = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
    requests: number;
    rps: number;
    p50Ms: number;
    p99Ms: number;
    errors: number;
    statusCodes: Record<string, number>;
  };
  return { requests: j.requests, rps: j.rps, p50Ms: j.p50Ms, p99Ms: j.p99Ms, errors: j.errors, statuses: j.statusCodes, non2xx3xx: 0 };
}

/** Redirect port → METRICS_PORT of each redirector target. */
const metricsPortOf = new Map<number, number>();

async function handedOff(port: number): Promise<number> {
  return metricValue(metricsPortOf.get(port) ?? 0, 'redirector_events_handed_off_total');
}

/** Counters whose sum is every handed-off click a storing target is done with. */
const SETTLED_EVENTS = ['shortlink_analytics_events_inserted_total', 'shortlink_analytics_spooled_events_total', 'shortlink_analytics_events_dropped_total'];

/**
 * Waits until a storing target has inserted (or spooled, or counted as dropped) every click it
 * handed off, so its round's CPU includes the insert of the round's last batch and the next bare
 * round does not share the core with it. Background merges are not waited for. One scrape every
 * 100 ms: the target's CPU for rendering its metrics counts in the round too.
 */
async function insertTail(port: number, deadlineMs = 30_000): Promise<void> {
  const mp = metricsPortOf.get(port) ?? 0;
  const handed = await handedOff(port);
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const settled = (await metricValues(mp, SETTLED_EVENTS)).reduce((a, b) => a + b, 0);
    if (settled >= handed) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const code = (i: number): string => `b${String(i).padStart(7, '0')}`;
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/**
 * What a desktop browser sends with a navigation: the link-rule rows and the hot row they are
 * read against carry it, so a rule's look at the User-Agent and Accept-Language costs what it
 * costs for a person's click (without them, a device or language rule reads an empty header).
 */
export const BROWSER_HEADERS: readonly string[] = [
  'User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'Accept-Language: en-GB,en;q=0.9,de;q=0.8',
  'Accept-Encoding: gzip, deflate, br, zstd',
  'Sec-Fetch-Dest: document',
  'Sec-Fetch-Mode: navigate',
];

/** The link-rule rows and the hot row they are compared with (`npm run bench -- rules`). */
export const RULE_ROWS = ['hot', 'rules-none', 'rules-last', 'password', 'maxclicks'] as const;

/** Ten rules none of which holds for the bench's requests (a desktop Chrome in English, no query), or the last only. */
function benchRules(lastMatches: boolean): unknown[] {
  const rules: unknown[] = [];
  for (let k = 0; k < 9; k++) {
    const conditions = [
      [{ type: 'queryParam', value: `campaign${k}` }],
      [{ type: 'language', value: 'de' }],
      [{ type: 'device', value: 'IOS' }],
      [{ type: 'after', value: '2999-01-01T00:00:00.000Z' }],
      [
        { type: 'queryParam', value: `ref=${k}` },
        { type: 'language', value: 'fr' },
      ],
    ][k % 5];
    rules.push({ conditions, url: `https://example.com/rule/${k}` });
  }
  rules.push({
    conditions: lastMatches ? [{ type: 'after', value: '2000-01-01T00:00:00.000Z' }] : [{ type: 'device', value: 'ANDROID' }],
    url: 'https://example.com/rule/last',
  });
  return rules;
}

export async function redirectBench(options: { rows?: readonly string[] } = {}): Promise<void> {
  const started = Date.now();
  const deadline = setTimeout(() => {
    log('deadline reached: stopping');
    cleanup().finally(() => process.exit(1));
  }, DEADLINE_MS);
  deadline.unref();

  const dir = mkdtempSync(join(tmpdir(), 'shortlink-bench-'));
  chmodSync(dir, 0o755);
  let redis: Redis | null = null;
  const prefix = `shortlink-bench-${process.pid}-${Date.now().toString(36)}:`;
  let pgRelease: (() => Promise<void>) | null = null;

  const cleanup = async (): Promise<void> => {
    await stopChildren();
    if (redis) {
      redis.disconnect();
      await deleteRedisPrefix(REDIS_URL, prefix);
    }
    await pgRelease?.();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    log(`cores ${cores}, taskset ${haveTaskset ? 'yes' : 'no'}: targets on core ${SERVER_CORE}, load on core ${LOAD_CORE}`);
    haveWrk = spawnSync('which', ['wrk']).status === 0;
    if (!haveWrk) log('wrk not installed (see bench/README.md): autocannon only');
    const tools: Tool[] = haveWrk ? ['wrk', 'autocannon'] : ['autocannon'];

    const pg = await openEmbeddedPostgres(dir);
    pgRelease = pg.release;
    const pidFile = join(dir, 'postgres', 'postmaster.pid');
    const pgPid = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n')[0] : undefined;
    if (pgPid && haveTaskset && cores >= 2) spawnSync('taskset', ['-a', '-cp', String(SERVER_CORE), pgPid]);
    const sql = connect(pg.url, 2);
    await migrate(sql);
    const [org] = await sql<{ id: string }[]>`insert into organizations (name, plan) values ('bench', 'PRO') returning id`;
    await sql`
      insert into links (org_id, short_code, url, utm_source, created_by, updated_by, created_via, last_modified_via)
      select ${org!.id}, 'b' || lpad(i::text, 7, '0'), 'https://example.com/landing/' || i, 'bench', 'bench', 'bench', 'INTERNAL', 'INTERNAL'
      from generate_series(1, ${LINKS}) as i`;
    // The link-rule rows' links: 1,000 each, with 10 rules (none holding, or the last), a password
    // (its visitors carry a valid cookie), or a maxClicks no row reaches.
    const ruleLinks = async (prefix: string, extra: Record<string, unknown>): Promise<void> => {
      await sql`
        insert into links (org_id, short_code, url, utm_source, created_by, updated_by, created_via, last_modified_via, rules, password_hash, max_clicks)
        select ${org!.id}, ${prefix} || lpad(i::text, 7, '0'), 'https://example.com/landing/' || i, 'bench', 'bench', 'bench', 'INTERNAL', 'INTERNAL',
               ${sql.json((extra.rules ?? []) as never)}, ${(extra.passwordHash as string | undefined) ?? null}::text, ${(extra.maxClicks as number | undefined) ?? null}::int
        from generate_series(1, ${HOT_LINKS}) as i`;
    };
    await ruleLinks('n', { rules: benchRules(false) });
    await ruleLinks('l', { rules: benchRules(true) });
    await ruleLinks('p', { passwordHash: await hashPassword('bench password') });
    await ruleLinks('m', { maxClicks: 2_000_000_000 });
    const cookies = new PasswordCookies(await loadPasswordCookieSecret(sql));
    const protectedLinks = await sql<{ id: string; shortCode: string; passwordHash: string }[]>`
      select id, short_code as "shortCode", password_hash as "passwordHash" from links where short_code like 'p%' order by short_code`;
    const cookieLines = protectedLinks.map((l) => `/${l.shortCode}\t${cookies.setCookie(l, Date.now(), false).split(';')[0]}`);
    // Vacuumed and analysed now, so autovacuum does not wake up on this core during the first rows.
    await sql.unsafe('vacuum analyze links');
    await sql.end({ timeout: 1 });
    log(`seeded ${LINKS} links in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    try {
      const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      await r.connect();
      await r.ping();
      redis = r;
    } catch {
      log('Redis at 127.0.0.1:6379 unreachable: warm scenario skipped');
    }

    // Path files.
    const write = (name: string, lines: string[]): string => {
      const f = join(dir, name);
      writeFileSync(f, `${lines.join('\n')}\n`);
      return f;
    };
    const hotPaths = write(
      'hot.txt',
      Array.from({ length: HOT_LINKS }, (_, i) => `/${code(i + 1)}`),
    );
    const shuffled = Array.from({ length: LINKS }, (_, i) => i + 1);
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const coldPaths = write(
      'cold.txt',
      shuffled.map((i) => `/${code(i)}`),
    );
    const zipf = zipfSampler(LINKS, 42);
    const zipfPaths = write(
      'zipf.txt',
      Array.from({ length: 300_000 }, () => `/${code(1 + (shuffled[zipf()] ?? 1) - 1)}`),
    );
    const unknownPaths = write(
      'unknown.txt',
      Array.from({ length: 1_000 }, (_, i) => `/zz${String(i).padStart(6, '0')}`),
    );

    const rulePaths = (prefix: string) =>
      write(
        `${prefix}.txt`,
        Array.from({ length: HOT_LINKS }, (_, i) => `/${prefix}${String(i + 1).padStart(7, '0')}`),
      );
    const rulesNonePaths = rulePaths('n');
    const rulesLastPaths = rulePaths('l');
    const maxClicksPaths = rulePaths('m');
    const passwordPaths = write('password.txt', cookieLines);
    const passwordPrime = write(
      'password-prime.txt',
      cookieLines.map((l) => l.split('\t')[0] ?? ''),
    );

    const zipfDistinct = write('zipf-distinct.txt', [...new Set(readFileSync(zipfPaths, 'utf8').split('\n').filter(Boolean))]);

    const baseEnv = {
      DATABASE_URL: pg.url,
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: '0',
      // npm start's dashboard listens too: on any free port, never a fixed one another run holds.
      DASHBOARD_PORT: '0',
      DEFAULT_SHORT_DOMAIN: HOST,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      METRICS_PORT: '0',
    };
    const bare = await startTarget('bare', {});

    // Each target process runs only from just before its first row to just after its last, so no
    // idle target, and no storing target's background work (chDB merges, the ClickHouse endpoint's),
    // shares the server core with another row's rounds. A row's target: its port, its pid.
    interface Running {
      port: number;
      pid: number;
    }
    /** Starts once, on first use. */
    const once = <T>(start: () => Promise<T>): (() => Promise<T>) => {
      let started: Promise<T> | null = null;
      return () => (started ??= start());
    };

    // Exactly once: every hit a storing target handed off is stored, once: checked right after
    // its last row, when it is stopped (it flushes its events on SIGTERM).
    const stored: { scenario: string; handedOff: number; spooled: number; dropped: number; rows: number; distinct: number; ok: boolean }[] = [];
    const checkStored = async (scenario: string, metricsPort: number, stop: () => Promise<void>, dataPath: string): Promise<void> => {
      const [handed = 0, spooled = 0, dropped = 0] = await metricValues(metricsPort, [
        'redirector_events_handed_off_total',
        'shortlink_analytics_spooled_events_total',
        'shortlink_analytics_events_dropped_total',
      ]);
      await stop();
      const count = await countStored(dataPath);
      const ok = count.rows === handed && count.distinct === count.rows && dropped === 0;
      stored.push({ scenario, handedOff: handed, spooled, dropped, ...count, ok });
      log(
        `${scenario}: handed off ${handed}, stored ${count.rows} events, ${count.distinct} distinct, spooled ${spooled}, dropped ${dropped}${ok ? '' : ' — NOT EXACTLY ONCE'}`,
      );
    };

    // The main row: `npm start` itself, on the bench's Postgres, chDB under its own DATA_DIR.
    const wholeDataDir = join(dir, 'whole-data');
    const whole = once(async () => {
      const [api, port, metricsPort] = [await freePort(), await freePort(), await freePort()];
      const proc = await startEntry(
        'bin/start.ts',
        {
          DATABASE_URL: pg.url,
          DATA_DIR: wholeDataDir,
          API_HOST: '127.0.0.1',
          API_PORT: String(api),
          REDIRECT_HOST: '127.0.0.1',
          REDIRECT_PORT: String(port),
          METRICS_PORT: String(metricsPort),
          DEFAULT_SHORT_DOMAIN: HOST,
          LOG_LEVEL: 'warn',
        },
        port,
      );
      metricsPortOf.set(port, metricsPort);
      return { port, pid: proc.pid ?? 0, proc, metricsPort };
    });
    const stopWhole = async (): Promise<void> => {
      const w = await whole();
      await checkStored('whole-hot', w.metricsPort, async () => void (await stopAndWait(w.proc, 90_000)), join(wholeDataDir, 'analytics'));
    };

    // The production rows: the production redirector (one worker) over HTTP to a ClickHouse
    // endpoint on the load core; they need Redis (its spool and cache tier) and wrk (its traffic).
    const withProduction = redis !== null && haveWrk;
    if (!withProduction) log('production rows skipped (they need Redis at 127.0.0.1:6379 and wrk)');
    const endpointDir = join(dir, 'clickhouse');
    const production = once(async () => {
      // On the load core, at the lowest priority: in production ClickHouse has machines of its own,
      // so its inserts and merges must not slow the load generator (a slower wrk means fewer
      // requests per wake-up of the redirector, and more CPU per request, bare's too).
      const endpoint = await startPrinting(LOAD_CORE, [join(ROOT, 'bench', 'clickhouse-endpoint.ts'), endpointDir], {}, true);
      const [port, metricsPort] = [await freePort(), await freePort()];
      const proc = await startEntry(
        'redirector/main.ts',
        {
          ...baseEnv,
          REDIS_URL,
          CLICKHOUSE_URL: `http://127.0.0.1:${endpoint.port}`,
          REDIRECT_WORKERS: '1',
          REDIRECT_PORT: String(port),
          METRICS_PORT: String(metricsPort),
          TRUST_PROXY: '1',
        },
        port,
      );
      metricsPortOf.set(port, metricsPort);
      return { port, pid: proc.pid ?? 0, proc, endpoint, metricsPort };
    });
    const stopProduction = async (): Promise<void> => {
      const p = await production();
      await checkStored(
        'production',
        p.metricsPort,
        async () => {
          await stopAndWait(p.proc, 90_000);
          await stopAndWait(p.endpoint.proc, 30_000);
        },
        endpointDir,
      );
    };

    // The diagnostic rows' redirectors (discarding sinks).
    const discarding = (env: Record<string, string>) =>
      once(async () => {
        const t = await startTarget('redirector', { ...baseEnv, ...env });
        metricsPortOf.set(t.port, t.metricsPort);
        return { port: t.port, pid: t.proc.pid ?? 0, proc: t.proc };
      });
    const hot = discarding({ LINK_CACHE_ENTRIES: String(LINKS * 2) });
    // The maxClicks row: the hot redirector with Redis (the per-link click counters live there).
    const hotRedis = discarding({ LINK_CACHE_ENTRIES: String(LINKS * 2), REDIS_URL });
    const cold = discarding({ LINK_CACHE_ENTRIES: '0' });
    const warm = discarding({ LINK_CACHE_ENTRIES: '0', REDIS_URL });
    const stop = (t: () => Promise<{ proc: ChildProcess }>) => async (): Promise<void> => void (await stopAndWait((await t()).proc, 30_000));

    interface Scenario {
      name: string;
      sink: Sink;
      target: () => Promise<Running>;
      paths: string;
      script: Script;
      expect: number;
      prime?: string;
      /** The load generators this row runs with (the new rows: wrk only). */
      tools: Tool[];
      /** A fixed offered load: each wrk connection waits this long before each request (bare and target alike). */
      delayMs?: number;
      /** Extra request headers, bare and target alike (wrk only): a browser's, for the link-rule rows and their hot row. */
      headers?: readonly string[];
      /** Run after the row's rounds (stops the target after its last row; a storing one is counted). */
      after?: () => Promise<void>;
    }
    const wrkOnly: Tool[] = haveWrk ? ['wrk'] : ['autocannon'];
    const allScenarios: Scenario[] = [
      { name: 'whole-hot', sink: 'chdb', target: whole, paths: hotPaths, script: 'paths', expect: 302, prime: hotPaths, tools: wrkOnly, after: stopWhole },
      ...(withProduction
        ? [
            {
              name: 'production',
              sink: 'http' as const,
              target: production,
              paths: hotPaths,
              script: 'clients' as const,
              expect: 302,
              prime: hotPaths,
              tools: ['wrk' as const],
            },
            {
              name: 'prod-fixed',
              sink: 'http' as const,
              target: production,
              paths: hotPaths,
              script: 'clients' as const,
              expect: 302,
              tools: ['wrk' as const],
              delayMs: FIXED_LOAD_DELAY_MS,
              after: stopProduction,
            },
          ]
        : []),
      { name: 'hot', sink: 'discard', target: hot, paths: hotPaths, script: 'paths', expect: 302, prime: hotPaths, tools, headers: BROWSER_HEADERS },
      ...(redis
        ? [
            {
              name: 'warm',
              sink: 'discard' as const,
              target: warm,
              paths: hotPaths,
              script: 'paths' as const,
              expect: 302,
              prime: hotPaths,
              tools,
              after: stop(warm),
            },
          ]
        : []),
      { name: 'cold', sink: 'discard', target: cold, paths: coldPaths, script: 'paths', expect: 302, tools, after: stop(cold) },
      { name: 'mixed-zipf', sink: 'discard', target: hot, paths: zipfPaths, script: 'paths', expect: 302, prime: zipfDistinct, tools },
      { name: 'unknown', sink: 'discard', target: hot, paths: unknownPaths, script: 'paths', expect: 404, prime: unknownPaths, tools },
      // The link-rule rows, against the same hot redirector (compare their CPU per click with hot's).
      {
        name: 'rules-none',
        sink: 'discard',
        target: hot,
        paths: rulesNonePaths,
        script: 'paths',
        expect: 302,
        prime: rulesNonePaths,
        tools: wrkOnly,
        headers: BROWSER_HEADERS,
      },
      {
        name: 'rules-last',
        sink: 'discard',
        target: hot,
        paths: rulesLastPaths,
        script: 'paths',
        expect: 302,
        prime: rulesLastPaths,
        tools: wrkOnly,
        headers: BROWSER_HEADERS,
      },
      {
        name: 'password',
        sink: 'discard',
        target: hot,
        paths: passwordPaths,
        script: 'cookies',
        expect: 302,
        prime: passwordPrime,
        tools: wrkOnly,
        headers: BROWSER_HEADERS,
        after: stop(hot),
      },
      ...(redis
        ? [
            {
              name: 'maxclicks',
              sink: 'discard' as const,
              target: hotRedis,
              paths: maxClicksPaths,
              script: 'paths' as const,
              expect: 302,
              prime: maxClicksPaths,
              tools: wrkOnly,
              headers: BROWSER_HEADERS,
              after: stop(hotRedis),
            },
          ]
        : []),
    ];
    // A chosen set of rows (npm run bench -- rules) runs with wrk only.
    const scenarios =
      options.rows === undefined ? allScenarios : allScenarios.filter((s) => options.rows?.includes(s.name)).map((s) => ({ ...s, tools: wrkOnly }));

    const results: RoundResult[] = [];
    const totalRounds = scenarios.reduce((n, s) => n + s.tools.reduce((m, t) => m + 2 + 2 * (t === 'wrk' ? WRK_PAIRS : AUTOCANNON_PAIRS), 0), 0);
    let roundsRun = 0;
    const loadRound = (
      tool: Tool,
      port: number,
      paths: string,
      seconds: number,
      label: string,
      script: Script,
      delayMs?: number,
      headers?: readonly string[],
    ): Promise<LoadResult> => {
      roundsRun++;
      progress.update(`[bench] round ${roundsRun}/${totalRounds}: ${label} (${((Date.now() - started) / 1000).toFixed(0)} s elapsed)`);
      return runLoad(tool, port, paths, seconds, script, { delayMs, headers });
    };
    const seen = new Set<() => Promise<Running>>();
    for (const s of scenarios) {
      const t = await s.target();
      if (!seen.has(s.target)) {
        // Just started: let its start-up work (JIT, connections, the engine) settle first.
        seen.add(s.target);
        await new Promise((r) => setTimeout(r, 2_000));
      }
      if (s.prime) {
        // Fill the tier under test (LRU, Redis for warm, the negative cache) before measuring.
        const paths = readFileSync(s.prime, 'utf8').split('\n').filter(Boolean);
        for (let i = 0; i < paths.length; i += 50) {
          await Promise.all(
            paths
              .slice(i, i + 50)
              .map((p) => fetch(`http://127.0.0.1:${t.port}${p}`, { redirect: 'manual', headers: { host: HOST } }).then((r) => r.arrayBuffer())),
          );
        }
      }
      for (const tool of s.tools) {
        // JIT warm-up of both targets, not recorded.
        await loadRound(tool, bare.port, s.paths, WARMUP_SECONDS, `${s.name} ${tool} warm-up bare`, s.script, s.delayMs, s.headers);
        await loadRound(tool, t.port, s.paths, WARMUP_SECONDS, `${s.name} ${tool} warm-up redirector`, s.script, s.delayMs, s.headers);
        const pairs = tool === 'wrk' ? WRK_PAIRS : AUTOCANNON_PAIRS;
        for (let round = 1; round <= pairs; round++) {
          for (const target of ['bare', 'redirector'] as const) {
            const port = target === 'bare' ? bare.port : t.port;
            const pid = target === 'bare' ? (bare.proc.pid ?? 0) : t.pid;
            const before = target === 'redirector' ? await handedOff(port) : 0;
            const cpuBefore = cpuMicros(pid);
            const r = await loadRound(tool, port, s.paths, ROUND_SECONDS, `${s.name} ${tool} ${target} #${round}`, s.script, s.delayMs, s.headers);
            if (target === 'redirector' && s.sink !== 'discard') await insertTail(port);
            const cpuUsPerReq = r.requests > 0 ? (cpuMicros(pid) - cpuBefore) / r.requests : 0;
            const hits = target === 'redirector' ? (await handedOff(port)) - before : undefined;
            const expected = target === 'bare' ? 302 : s.expect;
            const unexpectedStatus = r.statuses
              ? Object.entries(r.statuses)
                  .filter(([k]) => Number(k) !== expected)
                  .reduce((n, [, v]) => n + v, 0)
              : expected === 404
                ? 0
                : r.non2xx3xx;
            const expectHits = s.expect === 302 ? r.requests : 0;
            const hitsOk = hits === undefined ? undefined : hits - expectHits >= 0 && hits - expectHits <= (s.expect === 302 ? CONNECTIONS : 0);
            const row: RoundResult = {
              scenario: s.name,
              tool,
              target,
              round,
              requests: r.requests,
              rps: r.rps,
              p50Ms: r.p50Ms,
              p99Ms: r.p99Ms,
              errors: r.errors,
              unexpectedStatus,
              cpuUsPerReq,
              ...(hits === undefined ? {} : { hits, hitsOk }),
            };
            results.push(row);
            log(
              `${s.name} ${tool} ${target} #${round}: ${Math.round(r.rps)} rps, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, cpu ${cpuUsPerReq.toFixed(1)} µs/req` +
                `${hits === undefined ? '' : `, hits ${hits}/${r.requests}${hitsOk ? '' : ' HIT COUNT MISMATCH'}`}${unexpectedStatus ? `, UNEXPECTED STATUS ${unexpectedStatus}` : ''}`,
            );
          }
        }
      }
      await s.after?.();
    }

    // Summary: medians per (scenario, tool, target). The ratios are medians over the pairs of
    // each pair's own ratio (a target round and the bare round just before it), so load from
    // elsewhere on this shared host, which moves both rounds of a pair alike, cancels out.
    const summary: {
      scenario: string;
      sink: Sink;
      tool: Tool;
      redirectorRps: number;
      bareRps: number;
      ratio: number;
      p50Ms: number;
      p99Ms: number;
      bareP99Ms: number;
      cpuUsPerReq: number;
      bareCpuUsPerReq: number;
      cpuRatio: number;
    }[] = [];
    for (const s of scenarios) {
      for (const tool of s.tools) {
        const pick = (t: Target) => results.filter((r) => r.scenario === s.name && r.tool === tool && r.target === t);
        const red = pick('redirector');
        const b = pick('bare');
        const redirectorRps = median(red.map((r) => r.rps));
        const bareRps = median(b.map((r) => r.rps));
        const cpuUsPerReq = median(red.map((r) => r.cpuUsPerReq));
        const bareCpuUsPerReq = median(b.map((r) => r.cpuUsPerReq));
        const paired = (f: (r: RoundResult) => number): number => median(red.map((r) => f(r) / f(b.find((x) => x.round === r.round) ?? r)));
        summary.push({
          scenario: s.name,
          sink: s.sink,
          tool,
          redirectorRps,
          bareRps,
          ratio: paired((r) => r.rps),
          p50Ms: median(red.map((r) => r.p50Ms)),
          p99Ms: median(red.map((r) => r.p99Ms)),
          bareP99Ms: median(b.map((r) => r.p99Ms)),
          cpuUsPerReq,
          bareCpuUsPerReq,
          cpuRatio: paired((r) => r.cpuUsPerReq),
        });
      }
    }
    const pad = (v: string, n: number): string => v.padStart(n);
    const lines = [
      `${'scenario'.padEnd(11)} ${'sink'.padEnd(8)} ${'tool'.padEnd(10)} ${pad('rps', 9)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('bare rps', 9)} ${pad('bare p99', 8)} ${pad('ratio', 6)} ${pad('cpu µs/req', 10)} ${pad('bare cpu', 8)} ${pad('cpu ×', 6)}`,
      ...summary.map(
        (r) =>
          `${r.scenario.padEnd(11)} ${r.sink.padEnd(8)} ${r.tool.padEnd(10)} ${pad(String(Math.round(r.redirectorRps)), 9)} ${pad(r.p50Ms.toFixed(2), 7)} ${pad(r.p99Ms.toFixed(2), 7)} ${pad(String(Math.round(r.bareRps)), 9)} ${pad(r.bareP99Ms.toFixed(2), 8)} ${pad(`${r.ratio.toFixed(2)}x`, 6)} ${pad(r.cpuUsPerReq.toFixed(1), 10)} ${pad(r.bareCpuUsPerReq.toFixed(1), 8)} ${pad(`${r.cpuRatio.toFixed(2)}x`, 6)}`,
      ),
    ];
    process.stdout.write(
      `\nRedirect benchmark (${CONNECTIONS} connections, ${ROUND_SECONDS} s rounds, medians of interleaved rounds; ratio and cpu × = median of each bare→target pair's own ratio; cpu = process CPU per answered request)\n${lines.join('\n')}\n`,
    );
    const row = (name: string): (typeof summary)[number] | undefined =>
      summary.find((r) => r.scenario === name && r.tool === tools[0]) ?? summary.find((r) => r.scenario === name);
    const [whole1, prod, prodFixed, hot1, warm1, cold1, zipf1, unknown1] = [
      'whole-hot',
      'production',
      'prod-fixed',
      'hot',
      'warm',
      'cold',
      'mixed-zipf',
      'unknown',
    ].map(row);
    const targets = {
      wholeHotAtLeast05xBare: whole1 ? whole1.ratio >= 0.5 : null,
      productionCpuPerClickAtMost15xBare: prod ? prod.cpuRatio <= 1.5 : null,
      productionFixedLoadCpuPerClickAtMost15xBare: prodFixed ? prodFixed.cpuRatio <= 1.5 : null,
      productionP99Below2ms: prod ? prod.p99Ms < 2 : null,
      productionFixedLoadP99Below2ms: prodFixed ? prodFixed.p99Ms < 2 : null,
      // Each against the bare rounds interleaved with it, then one against the other.
      zipfAtLeast085xHot: zipf1 && hot1 ? zipf1.ratio >= 0.85 * hot1.ratio : null,
      warmAtLeast05xBare: warm1 ? warm1.ratio >= 0.5 : null,
      coldAtLeast30kRps: cold1 ? cold1.redirectorRps >= 30_000 : null,
      unknownAtLeast08xBare: unknown1 ? unknown1.ratio >= 0.8 : null,
      // Link rules: CPU per click at most 1.15× the plain hot link's, same run (against hot's own bare pairs).
      ...Object.fromEntries(
        ['rules-none', 'rules-last', 'password', 'maxclicks'].map((name) => {
          const r = summary.find((x) => x.scenario === name);
          const h = summary.find((x) => x.scenario === 'hot' && x.tool === r?.tool);
          return [`${name}CpuPerClickAtMost115xHot`, r && h ? r.cpuUsPerReq <= 1.15 * h.cpuUsPerReq : null];
        }),
      ),
    };
    for (const name of ['rules-none', 'rules-last', 'password', 'maxclicks']) {
      const r = summary.find((x) => x.scenario === name);
      const h = summary.find((x) => x.scenario === 'hot' && x.tool === r?.tool);
      if (r && h)
        process.stdout.write(
          `${name}: ${(r.cpuUsPerReq / h.cpuUsPerReq).toFixed(2)}x hot's CPU per click (${r.cpuUsPerReq.toFixed(1)} vs ${h.cpuUsPerReq.toFixed(1)} µs)\n`,
        );
    }
    process.stdout.write(`targets (${tools[0]}): ${JSON.stringify(targets)}\n`);
    const bad = results.filter((r) => r.unexpectedStatus > 0 || r.errors > 0 || r.hitsOk === false).length + stored.filter((s) => !s.ok).length;
    process.stdout.write(
      `checks: ${bad === 0 ? 'every round answered as expected with one hit per click, and every handed-off click was stored exactly once' : `${bad} round(s) or store(s) with unexpected statuses, socket errors, hit counts or stored counts`}\n`,
    );
    const file = writeResults('redirect', {
      cores,
      pinned: haveTaskset && cores >= 2,
      connections: CONNECTIONS,
      roundSeconds: ROUND_SECONDS,
      links: LINKS,
      sinks: {
        chdb: 'npm start: write buffer into chDB, counted after exit',
        http: 'production redirector: Native over HTTP to a ClickHouse endpoint, counted after exit',
        discard: 'hits counted and dropped (diagnostic of the redirect path)',
      },
      summary,
      targets,
      stored,
      rounds: results,
    });
    log(`results written to ${file} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    progress.done();
    clearTimeout(deadline);
    await cleanup();
  }
}
