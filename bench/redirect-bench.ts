// Invariant: the redirect benchmark is self-contained, loopback-only and bounded in time: it
// starts an embedded Postgres in a temp dir, seeds 100k links by SQL, starts the targets pinned
// to core 0 (a bare uWS 302 server and redirectors in production mode) and the load generators
// pinned to core 1, runs interleaved bare/redirector rounds per scenario, prints a table, writes
// JSON under bench/results/, and cleans up (processes, temp dir, Redis prefix) even on failure.
// Scenarios: hot (LRU hit), warm (Redis hit, LINK_CACHE_ENTRIES=0; skipped without Redis),
// cold (Postgres: no LRU, no Redis), mixed (Zipf over 100k links, LRU on), unknown (404s).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { connect } from '../shared/db/database.ts';
import { openEmbeddedPostgres } from '../shared/db/embedded-postgres.ts';
import { migrate } from '../shared/db/migrate.ts';
import { progressLine } from '../shared/runtime/progress-line.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LINKS = 100_000;
const HOT_LINKS = 1_000;
const CONNECTIONS = 64;
const ROUND_SECONDS = 5;
const WARMUP_SECONDS = 2;
const WRK_PAIRS = 3;
const AUTOCANNON_PAIRS = 2;
const DEADLINE_MS = 9.5 * 60_000;
const HOST = 'sho.rt';
const REDIS_URL = 'redis://127.0.0.1:6379';

type Tool = 'wrk' | 'autocannon';
type Target = 'bare' | 'redirector';

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
const cores = availableParallelism();
const haveTaskset = spawnSync('which', ['taskset']).status === 0;
const pin = (core: number, cmd: string[]): string[] => (haveTaskset && cores >= 2 ? ['taskset', '-c', String(core), ...cmd] : cmd);
const SERVER_CORE = 0;
const LOAD_CORE = 1;

function startTarget(mode: 'bare' | 'redirector', env: Record<string, string>): Promise<{ port: number; proc: ChildProcess }> {
  const [cmd, ...args] = pin(SERVER_CORE, [process.execPath, '--import', 'tsx', join(ROOT, 'bench', 'bench-server.ts'), mode]);
  const proc = spawn(cmd!, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\d+)(?: (\d+))?\n/.exec(buf);
      if (m) {
        if (m[2]) metricsPortOf.set(Number(m[1]), Number(m[2]));
        resolve({ port: Number(m[1]), proc });
      }
    });
    proc.once('exit', (code) => reject(new Error(`${mode} target exited with ${code}`)));
  });
}

function run(cmd: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const [c, ...a] = cmd;
    const p = spawn(c!, a, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(p);
    let out = '';
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd.join(' ')} exited ${code}: ${err.slice(0, 500)}`))));
  });
}

type LoadResult = Omit<RoundResult, 'scenario' | 'target' | 'round' | 'tool' | 'unexpectedStatus'> & { statuses: Record<string, number> | null; non2xx3xx: number };

async function runLoad(tool: Tool, port: number, pathsFile: string, seconds: number): Promise<LoadResult> {
  if (tool === 'wrk') {
    const out = await run(
      pin(LOAD_CORE, ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-H', `Host: ${HOST}`, '-s', join(ROOT, 'bench', 'wrk-paths.lua'), `http://127.0.0.1:${port}`, '--', pathsFile]),
    );
    const line = out.split('\n').find((l) => l.startsWith('JSON '));
    if (!line) throw new Error(`wrk printed no summary: ${out.slice(0, 300)}`);
    const j = JSON.parse(line.slice(5)) as { requests: number; durationUs: number; p50Us: number; p99Us: number; socketErrors: number; non2xx3xx: number };
    return { requests: j.requests, rps: j.requests / (j.durationUs / 1e6), p50Ms: j.p50Us / 1000, p99Ms: j.p99Us / 1000, errors: j.socketErrors, statuses: null, non2xx3xx: j.non2xx3xx };
  }
  const out = await run(
    pin(LOAD_CORE, [
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench', 'autocannon-runner.ts'),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, host: HOST, pathsFile, connections: CONNECTIONS, durationSeconds: seconds }),
    ]),
  );
  const j = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { requests: number; rps: number; p50Ms: number; p99Ms: number; errors: number; statusCodes: Record<string, number> };
  return { requests: j.requests, rps: j.rps, p50Ms: j.p50Ms, p99Ms: j.p99Ms, errors: j.errors, statuses: j.statusCodes, non2xx3xx: 0 };
}

/** Redirect port → METRICS_PORT of each redirector target. */
const metricsPortOf = new Map<number, number>();

async function handedOff(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${metricsPortOf.get(port) ?? 0}/metrics`);
  const m = /^redirector_events_handed_off_total (\d+)/m.exec(await res.text());
  return Number(m?.[1] ?? 0);
}

/** Zipf(s=1) ranks over n items, by inverse CDF on a precomputed table. */
function zipfSampler(n: number, seed: number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 1; k <= n; k++) cdf[k - 1] = sum += 1 / k;
  let state = seed >>> 0;
  const rand = (): number => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return () => {
    const u = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const code = (i: number): string => `b${String(i).padStart(7, '0')}`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

export async function redirectBench(): Promise<void> {
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
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (redis) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    }
    await pgRelease?.();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    log(`cores ${cores}, taskset ${haveTaskset ? 'yes' : 'no'}: targets on core ${SERVER_CORE}, load on core ${LOAD_CORE}`);
    const haveWrk = spawnSync('which', ['wrk']).status === 0;
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
    const hotPaths = write('hot.txt', Array.from({ length: HOT_LINKS }, (_, i) => `/${code(i + 1)}`));
    const shuffled = Array.from({ length: LINKS }, (_, i) => i + 1);
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const coldPaths = write('cold.txt', shuffled.map((i) => `/${code(i)}`));
    const zipf = zipfSampler(LINKS, 42);
    const zipfPaths = write('zipf.txt', Array.from({ length: 300_000 }, () => `/${code(1 + (shuffled[zipf()] ?? 1) - 1)}`));
    const unknownPaths = write('unknown.txt', Array.from({ length: 1_000 }, (_, i) => `/zz${String(i).padStart(6, '0')}`));

    const baseEnv = { DATABASE_URL: pg.url, REDIRECT_HOST: '127.0.0.1', REDIRECT_PORT: '0', DEFAULT_SHORT_DOMAIN: HOST, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', METRICS_PORT: '0' };
    const bare = await startTarget('bare', {});
    const hot = await startTarget('redirector', { ...baseEnv, LINK_CACHE_ENTRIES: String(LINKS * 2) });
    const cold = await startTarget('redirector', { ...baseEnv, LINK_CACHE_ENTRIES: '0' });
    const warm = redis ? await startTarget('redirector', { ...baseEnv, LINK_CACHE_ENTRIES: '0', REDIS_URL }) : null;

    const scenarios: { name: string; port: number; paths: string; expect: number; prime?: string }[] = [
      { name: 'hot', port: hot.port, paths: hotPaths, expect: 302, prime: hotPaths },
      ...(warm ? [{ name: 'warm', port: warm.port, paths: hotPaths, expect: 302, prime: hotPaths }] : []),
      { name: 'cold', port: cold.port, paths: coldPaths, expect: 302 },
      { name: 'mixed-zipf', port: hot.port, paths: zipfPaths, expect: 302 },
      { name: 'unknown', port: hot.port, paths: unknownPaths, expect: 404, prime: unknownPaths },
    ];

    const results: RoundResult[] = [];
    const totalRounds = scenarios.length * tools.reduce((n, t) => n + 2 + 2 * (t === 'wrk' ? WRK_PAIRS : AUTOCANNON_PAIRS), 0);
    let roundsRun = 0;
    const loadRound = (tool: Tool, port: number, paths: string, seconds: number, label: string): Promise<LoadResult> => {
      roundsRun++;
      progress.update(`[bench] round ${roundsRun}/${totalRounds}: ${label} (${((Date.now() - started) / 1000).toFixed(0)} s elapsed)`);
      return runLoad(tool, port, paths, seconds);
    };
    for (const s of scenarios) {
      if (s.prime) {
        // Fill the tier under test (LRU, or Redis for warm) before measuring.
        const paths = readFileSync(s.prime, 'utf8').split('\n').filter(Boolean);
        for (let i = 0; i < paths.length; i += 50) {
          await Promise.all(paths.slice(i, i + 50).map((p) => fetch(`http://127.0.0.1:${s.port}${p}`, { redirect: 'manual', headers: { host: HOST } }).then((r) => r.arrayBuffer())));
        }
      }
      for (const tool of tools) {
        // JIT warm-up of both targets, not recorded.
        await loadRound(tool, bare.port, s.paths, WARMUP_SECONDS, `${s.name} ${tool} warm-up bare`);
        await loadRound(tool, s.port, s.paths, WARMUP_SECONDS, `${s.name} ${tool} warm-up redirector`);
        const pairs = tool === 'wrk' ? WRK_PAIRS : AUTOCANNON_PAIRS;
        for (let round = 1; round <= pairs; round++) {
          for (const target of ['bare', 'redirector'] as const) {
            const port = target === 'bare' ? bare.port : s.port;
            const before = target === 'redirector' ? await handedOff(port) : 0;
            const r = await loadRound(tool, port, s.paths, ROUND_SECONDS, `${s.name} ${tool} ${target} #${round}`);
            const hits = target === 'redirector' ? (await handedOff(port)) - before : undefined;
            const expected = target === 'bare' ? 302 : s.expect;
            const unexpectedStatus = r.statuses ? Object.entries(r.statuses).filter(([k]) => Number(k) !== expected).reduce((n, [, v]) => n + v, 0) : expected === 404 ? 0 : r.non2xx3xx;
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
              ...(hits === undefined ? {} : { hits, hitsOk }),
            };
            results.push(row);
            log(
              `${s.name} ${tool} ${target} #${round}: ${Math.round(r.rps)} rps, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms` +
                `${hits === undefined ? '' : `, hits ${hits}/${r.requests}${hitsOk ? '' : ' HIT COUNT MISMATCH'}`}${unexpectedStatus ? `, UNEXPECTED STATUS ${unexpectedStatus}` : ''}`,
            );
          }
        }
      }
    }

    // Summary: medians per (scenario, tool, target), ratio to bare of the same tool.
    const summary: { scenario: string; tool: Tool; redirectorRps: number; bareRps: number; ratio: number; p50Ms: number; p99Ms: number; bareP99Ms: number }[] = [];
    for (const s of scenarios) {
      for (const tool of tools) {
        const pick = (t: Target) => results.filter((r) => r.scenario === s.name && r.tool === tool && r.target === t);
        const red = pick('redirector');
        const b = pick('bare');
        const redirectorRps = median(red.map((r) => r.rps));
        const bareRps = median(b.map((r) => r.rps));
        summary.push({
          scenario: s.name,
          tool,
          redirectorRps,
          bareRps,
          ratio: redirectorRps / bareRps,
          p50Ms: median(red.map((r) => r.p50Ms)),
          p99Ms: median(red.map((r) => r.p99Ms)),
          bareP99Ms: median(b.map((r) => r.p99Ms)),
        });
      }
    }
    const pad = (v: string, n: number): string => v.padStart(n);
    const lines = [
      `${'scenario'.padEnd(11)} ${'tool'.padEnd(10)} ${pad('rps', 9)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('bare rps', 9)} ${pad('bare p99', 8)} ${pad('ratio', 6)}`,
      ...summary.map(
        (r) =>
          `${r.scenario.padEnd(11)} ${r.tool.padEnd(10)} ${pad(String(Math.round(r.redirectorRps)), 9)} ${pad(r.p50Ms.toFixed(2), 7)} ${pad(r.p99Ms.toFixed(2), 7)} ${pad(String(Math.round(r.bareRps)), 9)} ${pad(r.bareP99Ms.toFixed(2), 8)} ${pad(`${r.ratio.toFixed(2)}x`, 6)}`,
      ),
    ];
    process.stdout.write(`\nRedirect benchmark (${CONNECTIONS} connections, ${ROUND_SECONDS} s rounds, medians of interleaved rounds)\n${lines.join('\n')}\n`);
    const hot1 = summary.find((r) => r.scenario === 'hot' && r.tool === tools[0]);
    const cold1 = summary.find((r) => r.scenario === 'cold' && r.tool === tools[0]);
    const targets = {
      hotRatioAtLeast085: hot1 ? hot1.ratio >= 0.85 : null,
      hotP99Below2ms: hot1 ? hot1.p99Ms < 2 : null,
      coldAtLeast10kRps: cold1 ? cold1.redirectorRps >= 10_000 : null,
    };
    process.stdout.write(`targets (${tools[0]}): ${JSON.stringify(targets)}\n`);
    const bad = results.filter((r) => r.unexpectedStatus > 0 || r.errors > 0 || r.hitsOk === false).length;
    process.stdout.write(`checks: ${bad === 0 ? 'every round answered as expected with one hit per click' : `${bad} round(s) with unexpected statuses, socket errors or hit counts`}\n`);
    const resultsDir = join(ROOT, 'bench', 'results');
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, `redirect-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          cores,
          pinned: haveTaskset && cores >= 2,
          connections: CONNECTIONS,
          roundSeconds: ROUND_SECONDS,
          links: LINKS,
          hitSink: 'discarding (hand-off counted)',
          summary,
          targets,
          rounds: results,
        },
        null,
        2,
      )}\n`,
    );
    log(`results written to ${file} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    progress.done();
    clearTimeout(deadline);
    await cleanup();
  }
}
