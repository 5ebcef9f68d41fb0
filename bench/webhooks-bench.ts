// Invariant: the webhooks benchmark is self-contained, loopback-only and bounded in time
// (DEADLINE_MS). On the production topology (an embedded Postgres cluster of its own, the
// machine's Redis under a key prefix of its own, the ClickHouse stand-in, `start:redirector` with
// two workers, `start:ingest` with its backfill and delivery worker) it offers TARGET_RPS clicks a
// second with wrk (WRK_RATE: a fixed rate whatever the latency, wrk-common.lua) spread evenly over
// ORGS organisations, each with one link and one analytics.events endpoint on a receiver in this
// process that verifies every signature, and measures:
// - lag: for every event clicked inside the LAG_SECONDS window, its receipt time minus its click
//   time (the event object's createdAt), and the distinct events received against those stored;
// - cpu: interleaved rounds with the endpoints disabled and enabled under the same load, CPU per
//   click of the redirector cluster, ingest and the Postgres cluster (every process of each tree,
//   exited ones included), the ClickHouse stand-in reported beside them but not counted;
// - solo: one endpoint offered the whole rate, whose backlog grows (at most one message of at
//   most 1,000 events a second per endpoint).
// It prints a summary, writes JSON under bench/results/ and cleans up (processes, temp dir, Redis
// prefix) even on failure.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { EVENT_FIELDS } from '../shared/analytics/events/event-schema.ts';
import { connect } from '../shared/db/database.ts';
import { openEmbeddedPostgres } from '../shared/db/embedded-postgres.ts';
import { migrate } from '../shared/db/migrate.ts';
import type { Sql } from '../shared/db/sql.ts';
import { freePort } from '../shared/net/free-port.ts';
import { deleteRedisPrefix } from '../test/support/servers.ts';
import { addEndpoint, removeEndpoint, setEndpointEnabled } from '../shared/webhooks/webhook-repository.ts';
import {
  cpuMicros,
  HOST,
  LOAD_CORE,
  median,
  metricValue,
  REDIS_URL,
  runLoad,
  startEntry,
  startPrinting,
  stopAndWait,
  stopChildren,
  writeResults,
} from './redirect-bench.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ORGS = 20;
const TARGET_RPS = 10_000;
/** wrk's connections: enough that TARGET_RPS holds up to 25 ms of latency (wrk-common.lua's WRK_RATE). */
const CONNECTIONS = 256;
const WARMUP_SECONDS = 20;
const LAG_SECONDS = 60;
const LAG_BUCKET_SECONDS = 10;
/** After the load stops: how long the last events may take to arrive before the count is final. */
const DRAIN_WAIT_MS = 30_000;
const CPU_PAIRS = 5;
/** Per cpu round: seconds after the toggle before the CPU is read (the pipeline's lag is ~2 s), then seconds read. */
const SETTLE_SECONDS = 6;
const MEASURE_SECONDS = 12;
const SOLO_LOAD_SECONDS = 10;
const SOLO_WATCH_SECONDS = 20;
const REDIRECT_WORKERS = 2;
const DEADLINE_MS = 10 * 60_000;
const SETTINGS = { allowPrivate: true, secretsKey: undefined };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (m: string): void => void process.stderr.write(`[bench webhooks] ${m}\n`);

/** The q-quantile of ascending values (nearest rank). */
const quantile = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

/** An event object's createdAt (ISO 8601 with up to 6 fraction digits) in epoch ms. */
function clickMs(createdAt: string): number {
  const dot = createdAt.indexOf('.', 19);
  const whole = Date.parse(`${createdAt.slice(0, 19)}Z`);
  return dot < 0 ? whole : whole + Number(`0.${createdAt.slice(dot + 1, -1)}`) * 1000;
}

interface EventSeen {
  path: string;
  eventId: string;
  clickMs: number;
  atMs: number;
}

/**
 * Whether one of the message's signatures is the Standard Webhooks v1 signature (HMAC-SHA256 of
 * `id.timestamp.body`) under `key`: node:crypto's HMAC, about a tenth of the standardwebhooks
 * package's CPU (pure JS) per message, so the receiver takes little of the host from the measured
 * processes. The test suites verify with the package itself.
 */
function signedBy(key: Buffer, headers: IncomingHttpHeaders, body: string): boolean {
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(`v1,${expected}`);
}

/** The endpoints' receiver: checks each message's signature with its path's key, answers 204, hands each event to `onEvent`. */
interface Receiver {
  url: string;
  /** Endpoint path → the key its secret (whsec_ + base64) names. */
  keys: Map<string, Buffer>;
  messages: number;
  unverified: number;
  onEvent: (e: EventSeen) => void;
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', keys: new Map(), messages: 0, unverified: 0, onEvent: () => {}, server: undefined as unknown as Server };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const atMs = Date.now();
      const path = req.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      const key = r.keys.get(path);
      if (!key || !signedBy(key, req.headers, body)) r.unverified++;
      const message = JSON.parse(body) as { type: string; data: { events?: { eventId: string; createdAt: string }[] } };
      r.messages++;
      for (const e of message.data.events ?? []) r.onEvent({ path, eventId: e.eventId, clickMs: clickMs(e.createdAt), atMs });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  return r;
}

/** Distinct events of these organisations clicked in [fromMs, toMs) that the ClickHouse stand-in holds. */
async function storedEvents(chUrl: string, orgIds: readonly string[], fromMs: number, toMs: number): Promise<number> {
  const f = EVENT_FIELDS;
  const query = `SELECT uniqExact(${f.eventId.column}) AS n FROM ${EVENTS_TABLE}
    WHERE ${f.orgId.column} IN (${orgIds.map((o) => `'${o}'`).join(', ')})
      AND ${f.createdAt.column} >= fromUnixTimestamp64Milli(toInt64(${Math.floor(fromMs)}))
      AND ${f.createdAt.column} < fromUnixTimestamp64Milli(toInt64(${Math.floor(toMs)})) FORMAT JSONEachRow`;
  const res = await fetch(`${chUrl}/`, { method: 'POST', body: query });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse count failed: ${text.slice(0, 300)}`);
  return Number((JSON.parse(text.trim()) as { n: string | number }).n);
}

/** This process's user + system CPU, µs. */
function ownCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** The postmaster of the cluster `sql` is connected to (the parent of its backend). */
async function postmasterPid(sql: Sql): Promise<number> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const stat = readFileSync(`/proc/${row?.pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

interface LagStats {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function lagStats(lags: number[]): LagStats {
  const sorted = Float64Array.from(lags).sort();
  return { events: sorted.length, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? Number.NaN };
}

interface CpuRound {
  pair: number;
  endpoints: 'none' | 'enabled';
  clicks: number;
  rps: number;
  /** Events the receiver got during the window. */
  eventsReceived: number;
  /** µs of CPU per click, per process tree. */
  redirector: number;
  ingest: number;
  postgres: number;
  counted: number;
  clickhouse: number;
  /** counted + clickhouse. */
  withClickhouse: number;
  /** This process (the receiver, wrk's parent, the metric reads): not counted. */
  bench: number;
}

export async function webhooksBench(): Promise<void> {
  const started = Date.now();
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  const deadline = setTimeout(() => {
    log('deadline reached: stopping');
    void cleanup().finally(() => process.exit(1));
  }, DEADLINE_MS);
  deadline.unref();

  const dir = mkdtempSync(join(tmpdir(), 'shortlink-webhooks-bench-'));
  chmodSync(dir, 0o755);
  const prefix = `shortlink-bench-webhooks-${process.pid}-${Date.now().toString(36)}:`;
  let redis: Redis | null = null;
  let sql: Sql | null = null;
  let receiver: Receiver | null = null;
  let pgRelease: (() => Promise<void>) | null = null;
  const cleanup = async (): Promise<void> => {
    await stopChildren();
    receiver?.server.closeAllConnections();
    receiver?.server.close();
    await sql?.end({ timeout: 1 }).catch(() => undefined);
    if (redis) {
      redis.disconnect();
      await deleteRedisPrefix(REDIS_URL, prefix).catch(() => undefined);
    }
    await pgRelease?.();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    if (spawnSync('which', ['wrk']).status !== 0) throw new Error('the webhooks bench needs wrk (see bench/README.md)');
    const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    await r.connect().catch(() => {
      throw new Error(`the webhooks bench needs Redis at ${REDIS_URL}`);
    });
    redis = r;

    const pg = await openEmbeddedPostgres(dir);
    pgRelease = pg.release;
    const db = connect(pg.url, 2);
    sql = db;
    await migrate(db);
    const pgPid = await postmasterPid(db);
    // ORGS organisations with one link each (whbench00 …), and a last one for the solo row (whbenchsolo).
    const orgs = await db<{ id: string; code: string }[]>`
      insert into organizations (name, plan)
      select case when i < ${ORGS} then 'whbench' || lpad(i::text, 2, '0') else 'whbenchsolo' end, 'PRO' from generate_series(0, ${ORGS}) as i
      returning id, name as code`;
    await db`
      insert into links (org_id, short_code, url, created_by, updated_by, created_via, last_modified_via)
      select o.id, o.name, 'https://example.com/landing/' || o.name, 'bench', 'bench', 'INTERNAL', 'INTERNAL'
      from organizations o where o.name like 'whbench%'`;
    receiver = await startReceiver();
    const rcv = receiver;
    const endpoints: { orgId: string; id: string; code: string }[] = [];
    for (const o of orgs) {
      const path = `/hook/${o.code}`;
      const { endpoint, secret } = await addEndpoint(db, SETTINGS, o.id, { url: `${rcv.url}${path}`, eventTypes: ['analytics.events'] });
      rcv.keys.set(path, Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
      endpoints.push({ orgId: o.id, id: endpoint.id, code: o.code });
    }
    const spread = endpoints.filter((e) => e.code !== 'whbenchsolo');
    const solo = endpoints.find((e) => e.code === 'whbenchsolo');
    if (!solo || spread.length !== ORGS) throw new Error('seeding failed');
    await setEndpointEnabled(db, solo.orgId, solo.id, false);
    const setSpread = async (enabled: boolean): Promise<void> => {
      for (const e of spread) await setEndpointEnabled(db, e.orgId, e.id, enabled);
    };
    const writePaths = (name: string, lines: string[]): string => {
      const f = join(dir, name);
      writeFileSync(f, `${lines.join('\n')}\n`);
      return f;
    };
    const spreadPaths = writePaths(
      'spread.txt',
      spread.map((e) => `/${e.code}`),
    );
    const soloPaths = writePaths('solo.txt', ['/whbenchsolo']);
    log(`seeded ${orgs.length} organisations, links and endpoints (${elapsed()})`);

    // The ClickHouse stand-in on the load core, beside wrk (in production it has machines of its own).
    const ch = await startPrinting(LOAD_CORE, [join(ROOT, 'bench', 'clickhouse-endpoint.ts'), join(dir, 'clickhouse')], {});
    const chUrl = `http://127.0.0.1:${ch.port}`;
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      CLICKHOUSE_URL: chUrl,
      DEFAULT_SHORT_DOMAIN: HOST,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
    };
    const [ingestHealth, ingestMetrics, redirectPort, redirectMetrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const ingest = await startEntry(
      'ingest/main.ts',
      { ...env, METRICS_PORT: String(ingestMetrics), INGEST_HEALTH_HOST: '127.0.0.1', INGEST_HEALTH_PORT: String(ingestHealth) },
      ingestHealth,
      null,
    );
    const redirector = await startEntry(
      'redirector/main.ts',
      {
        ...env,
        REDIRECT_WORKERS: String(REDIRECT_WORKERS),
        REDIRECT_HOST: '127.0.0.1',
        REDIRECT_PORT: String(redirectPort),
        METRICS_PORT: String(redirectMetrics),
      },
      redirectPort,
      null,
    );
    const handedOff = (): Promise<number> => metricValue(redirectMetrics, 'redirector_events_handed_off_total');
    const pids = { redirector: redirector.pid ?? 0, ingest: ingest.pid ?? 0, postgres: pgPid, clickhouse: ch.proc.pid ?? 0 };
    log(`started ${REDIRECT_WORKERS} redirector workers, ingest, the ClickHouse stand-in (${elapsed()})`);
    await sleep(3_000);

    const offered = { rate: TARGET_RPS, connections: CONNECTIONS };
    const checkLoad = (name: string, l: { errors: number; non2xx3xx: number }): string[] =>
      l.errors > 0 || l.non2xx3xx > 0 ? [`${name}: ${l.errors} socket errors, ${l.non2xx3xx} answers other than 2xx/3xx`] : [];
    const problems: string[] = [];

    // 1. Delivery lag: every event clicked inside the window, from click to receipt.
    const windowStart = Date.now() + WARMUP_SECONDS * 1000;
    const windowEnd = windowStart + LAG_SECONDS * 1000;
    const lags: number[] = [];
    /** Lags by LAG_BUCKET_SECONDS of click time: steady, or growing. */
    const buckets: number[][] = Array.from({ length: Math.ceil(LAG_SECONDS / LAG_BUCKET_SECONDS) }, () => []);
    const seen = new Set<string>();
    let duplicates = 0;
    rcv.onEvent = (e) => {
      if (e.clickMs < windowStart || e.clickMs >= windowEnd) return;
      if (seen.has(e.eventId)) {
        duplicates++;
        return;
      }
      seen.add(e.eventId);
      lags.push(e.atMs - e.clickMs);
      buckets[Math.floor((e.clickMs - windowStart) / (LAG_BUCKET_SECONDS * 1000))]?.push(e.atMs - e.clickMs);
    };
    log(`lag: ${WARMUP_SECONDS} s warm-up, then ${LAG_SECONDS} s measured at ${TARGET_RPS} clicks/s over ${ORGS} organisations`);
    const lagLoad = await runLoad('wrk', redirectPort, spreadPaths, WARMUP_SECONDS + LAG_SECONDS + 1, 'clients', offered);
    problems.push(...checkLoad('lag', lagLoad));
    await sleep(3_000);
    const spreadOrgs = spread.map((e) => e.orgId);
    const storedInWindow = await storedEvents(chUrl, spreadOrgs, windowStart, windowEnd);
    const drainUntil = Date.now() + DRAIN_WAIT_MS;
    while (seen.size < storedInWindow && Date.now() < drainUntil) await sleep(250);
    const lag = {
      ...lagStats(lags),
      stored: storedInWindow,
      received: seen.size,
      duplicates,
      offeredRps: lagLoad.rps,
      byClickTime: buckets.map((b, i) => ({ fromSecond: i * LAG_BUCKET_SECONDS, ...lagStats(b) })),
    };
    if (lag.received !== lag.stored) problems.push(`lag: ${lag.stored} events stored in the window, ${lag.received} received`);
    log(
      `lag: p50 ${lag.p50Ms.toFixed(0)} ms, p99 ${lag.p99Ms.toFixed(0)} ms, max ${lag.maxMs.toFixed(0)} ms over ${lag.events} events; stored ${lag.stored}, received ${lag.received}, duplicates ${duplicates} (${elapsed()})`,
    );
    seen.clear();

    // 2. CPU per click, endpoints disabled and enabled in turn under one continuous load.
    let received = 0;
    rcv.onEvent = () => void received++;
    const cpuSeconds = CPU_PAIRS * 2 * (SETTLE_SECONDS + MEASURE_SECONDS) + 8;
    const cpuLoadRun = runLoad('wrk', redirectPort, spreadPaths, cpuSeconds, 'clients', offered);
    const snapshot = async (): Promise<{ cpu: Record<keyof typeof pids | 'bench', number>; clicks: number; received: number; at: number }> => ({
      cpu: {
        redirector: cpuMicros(pids.redirector),
        ingest: cpuMicros(pids.ingest),
        postgres: cpuMicros(pids.postgres),
        clickhouse: cpuMicros(pids.clickhouse),
        bench: ownCpuMicros(),
      },
      clicks: await handedOff(),
      received,
      at: Date.now(),
    });
    const rounds: CpuRound[] = [];
    const cpuLoadStart = Date.now();
    for (let pair = 1; pair <= CPU_PAIRS; pair++) {
      for (const state of ['none', 'enabled'] as const) {
        await setSpread(state === 'enabled');
        await sleep(SETTLE_SECONDS * 1000);
        const before = await snapshot();
        await sleep(MEASURE_SECONDS * 1000);
        const after = await snapshot();
        const clicks = after.clicks - before.clicks;
        const per = (k: keyof typeof pids | 'bench'): number => (after.cpu[k] - before.cpu[k]) / clicks;
        const round: CpuRound = {
          pair,
          endpoints: state,
          clicks,
          rps: clicks / ((after.at - before.at) / 1000),
          eventsReceived: after.received - before.received,
          redirector: per('redirector'),
          ingest: per('ingest'),
          postgres: per('postgres'),
          counted: per('redirector') + per('ingest') + per('postgres'),
          clickhouse: per('clickhouse'),
          withClickhouse: per('redirector') + per('ingest') + per('postgres') + per('clickhouse'),
          bench: per('bench'),
        };
        rounds.push(round);
        log(
          `cpu #${pair} ${state.padEnd(7)}: ${Math.round(round.rps)} clicks/s, ${round.eventsReceived} events delivered; µs/click redirector ${round.redirector.toFixed(1)}, ingest ${round.ingest.toFixed(1)}, postgres ${round.postgres.toFixed(1)} = ${round.counted.toFixed(1)} (ClickHouse stand-in ${round.clickhouse.toFixed(1)})`,
        );
      }
    }
    const lastRoundEnd = Date.now();
    const cpuLoad = await cpuLoadRun;
    problems.push(...checkLoad('cpu', cpuLoad));
    if (lastRoundEnd - cpuLoadStart > cpuSeconds * 1000) problems.push('cpu: the load ended before the last round');
    for (const r of rounds) {
      if (r.clicks <= 0) problems.push(`cpu #${r.pair}: no click recorded`);
      if (r.endpoints === 'none' && r.eventsReceived > 0) problems.push(`cpu #${r.pair}: ${r.eventsReceived} events delivered with the endpoints disabled`);
    }
    const pick = (state: CpuRound['endpoints'], k: keyof CpuRound): number => median(rounds.filter((r) => r.endpoints === state).map((r) => r[k] as number));
    const pairRatio = (k: keyof CpuRound): number =>
      median(
        rounds
          .filter((r) => r.endpoints === 'enabled')
          .map((r) => (r[k] as number) / (rounds.find((x) => x.pair === r.pair && x.endpoints === 'none')?.[k] as number)),
      );
    const processes = ['rps', 'redirector', 'ingest', 'postgres', 'counted', 'clickhouse', 'withClickhouse', 'bench'] as const;
    const cpu = Object.fromEntries(processes.map((k) => [k, { noneUs: pick('none', k), enabledUs: pick('enabled', k), ratio: pairRatio(k) }])) as Record<
      (typeof processes)[number],
      { noneUs: number; enabledUs: number; ratio: number }
    >;
    await setSpread(false);

    // 3. One endpoint offered the whole rate: at most 1,000 events a second reach it.
    await setEndpointEnabled(db, solo.orgId, solo.id, true);
    const soloSeen: { atMs: number; lagMs: number }[] = [];
    const soloIds = new Set<string>();
    rcv.onEvent = (e) => {
      if (e.path !== '/hook/whbenchsolo' || soloIds.has(e.eventId)) return;
      soloIds.add(e.eventId);
      soloSeen.push({ atMs: e.atMs, lagMs: e.atMs - e.clickMs });
    };
    const soloStart = Date.now();
    log(`solo: ${TARGET_RPS} clicks/s to one organisation for ${SOLO_LOAD_SECONDS} s, watched for ${SOLO_WATCH_SECONDS} s`);
    const soloLoad = await runLoad('wrk', redirectPort, soloPaths, SOLO_LOAD_SECONDS, 'clients', offered);
    problems.push(...checkLoad('solo', soloLoad));
    await sleep(Math.max(0, soloStart + SOLO_WATCH_SECONDS * 1000 - Date.now()));
    const soloWatchEnd = Date.now();
    const soloStored = await storedEvents(chUrl, [solo.orgId], soloStart - 1000, soloWatchEnd);
    const lastSeconds = (s: number): LagStats => lagStats(soloSeen.filter((x) => x.atMs >= soloWatchEnd - s * 1000).map((x) => x.lagMs));
    const firstSeconds = (s: number): LagStats => lagStats(soloSeen.filter((x) => x.atMs < soloStart + s * 1000).map((x) => x.lagMs));
    const soloRow = {
      clicks: soloLoad.requests,
      offeredRps: soloLoad.rps,
      stored: soloStored,
      received: soloIds.size,
      watchSeconds: (soloWatchEnd - soloStart) / 1000,
      receivedPerSecond: soloIds.size / ((soloWatchEnd - soloStart) / 1000),
      firstFiveSeconds: firstSeconds(5),
      lastFiveSeconds: lastSeconds(5),
      backlog: soloStored - soloIds.size,
      drainSecondsAt1000: (soloStored - soloIds.size) / 1000,
    };
    log(
      `solo: ${soloRow.stored} stored, ${soloRow.received} received in ${soloRow.watchSeconds.toFixed(0)} s (${soloRow.receivedPerSecond.toFixed(0)}/s); lag p50 ${(soloRow.firstFiveSeconds.p50Ms / 1000).toFixed(1)} s in the first 5 s, ${(soloRow.lastFiveSeconds.p50Ms / 1000).toFixed(1)} s in the last 5 s; ${soloRow.backlog} waiting (${soloRow.drainSecondsAt1000.toFixed(0)} s more at 1,000/s)`,
    );
    await removeEndpoint(db, solo.orgId, solo.id);
    if (rcv.unverified > 0) problems.push(`${rcv.unverified} messages failed signature verification`);

    await stopAndWait(redirector, 60_000);
    await stopAndWait(ingest, 30_000);

    const s = (ms: number): string => (ms / 1000).toFixed(2);
    const W = 36;
    const row = (name: string, c: { noneUs: number; enabledUs: number; ratio: number }, digits = 1): string =>
      `  ${name.padEnd(W)} ${c.noneUs.toFixed(digits).padStart(8)} ${c.enabledUs.toFixed(digits).padStart(9)} ${(c.enabledUs - c.noneUs).toFixed(digits).padStart(7)} ${`${c.ratio.toFixed(2)}x`.padStart(7)}`;
    process.stdout.write(
      [
        '',
        `Webhooks benchmark (analytics.events; ${REDIRECT_WORKERS} redirector workers, ingest, embedded Postgres, ClickHouse stand-in; wrk at ${TARGET_RPS} requests/s on ${CONNECTIONS} connections)`,
        `lag, ${ORGS} organisations × 1 endpoint, ${Math.round(lag.offeredRps)} clicks/s, ${LAG_SECONDS} s after ${WARMUP_SECONDS} s warm-up: p50 ${s(lag.p50Ms)} s, p99 ${s(lag.p99Ms)} s, max ${s(lag.maxMs)} s (click → receipt); stored ${lag.stored}, received ${lag.received} distinct, ${lag.duplicates} duplicates`,
        `  by click time (${LAG_BUCKET_SECONDS} s each), p50/p99 s: ${lag.byClickTime.map((b) => `${s(b.p50Ms)}/${s(b.p99Ms)}`).join(', ')}`,
        `solo, 1 endpoint, ${Math.round(soloRow.offeredRps)} clicks/s for ${SOLO_LOAD_SECONDS} s: ${soloRow.stored} stored, ${soloRow.received} received in ${soloRow.watchSeconds.toFixed(0)} s (${soloRow.receivedPerSecond.toFixed(0)}/s); lag p50 ${s(soloRow.firstFiveSeconds.p50Ms)} s (first 5 s) → ${s(soloRow.lastFiveSeconds.p50Ms)} s (last 5 s), growing; ${soloRow.backlog} still queued (${soloRow.drainSecondsAt1000.toFixed(0)} s more)`,
        `cpu per click (µs), medians of ${CPU_PAIRS} interleaved pairs of ${MEASURE_SECONDS} s rounds; × = median of each pair's own ratio:`,
        `  ${''.padEnd(W)} ${'none'.padStart(8)} ${'endpoint'.padStart(9)} ${'extra'.padStart(7)} ${'×'.padStart(7)}`,
        row('clicks/s', cpu.rps, 0),
        row(`redirector (primary + ${REDIRECT_WORKERS} workers)`, cpu.redirector),
        row('ingest (backfill + delivery)', cpu.ingest),
        row('Postgres (the whole cluster)', cpu.postgres),
        row('counted: the three', cpu.counted),
        row('ClickHouse stand-in (not counted)', cpu.clickhouse),
        row('the three + the ClickHouse stand-in', cpu.withClickhouse),
        row('bench process: receiver (not counted)', cpu.bench),
        `delivered during the endpoint rounds: ${rounds
          .filter((r) => r.endpoints === 'enabled')
          .map((r) => `${((100 * r.eventsReceived) / r.clicks).toFixed(0)}%`)
          .join(', ')} of the rounds' clicks`,
        `checks: ${problems.length === 0 ? 'every click answered, every stored event of the window received once, every message verified' : problems.join('; ')}`,
        '',
      ].join('\n'),
    );
    const file = writeResults('webhooks', {
      orgs: ORGS,
      redirectWorkers: REDIRECT_WORKERS,
      wrk: offered,
      lag,
      solo: soloRow,
      cpu,
      counted:
        'redirector primary and workers, ingest, every process of the Postgres cluster (reaped ones included); not the ClickHouse stand-in (reported), Redis, wrk or the receiver',
      rounds,
      messages: rcv.messages,
      unverified: rcv.unverified,
      problems,
    });
    log(`results written to ${file} (${elapsed()})`);
    if (problems.length > 0) throw new Error(problems.join('; '));
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
}
