// Invariant: one run (`node --import tsx bench/analytics-bench.ts [--quick]`, or analyticsBench())
// measures the analytics store against a raw-chDB baseline measured in the same process, on the
// same data, in the same run: ingest events/s, browse and sync page latency over BENCH_EVENTS
// generated events, export rows/s with peak memory. Every store number is printed next to its
// baseline as a ratio; nothing is asserted against a fixed time. The run owns one fresh chDB
// directory under .tmp/ (one chDB path per process), deletes it on every exit path, stops by
// itself and uses no network. Its own SQL (the data generator and the baselines) is bench-only and
// splices nothing but the constants below; the store's statements come from clickhouse-sql.ts.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setImmediate as nextTick } from 'node:timers/promises';
import { Session } from 'chdb';
import { v7 as uuidv7 } from 'uuid';
import type { EventRecord, HitLink } from '../shared/analytics/events/analytics-event.ts';
import { type BrowseRequest, type EventFilters, type ExportFormat, NO_EVENT_FILTERS, type SyncRequest } from '../shared/analytics/reads/analytics-params.ts';
import { AnalyticsStore, filterFlags, filterParams } from '../shared/analytics/store/analytics-store.ts';
import { browseSql, exportSql, INSERT_COLUMNS, insertSettings, syncSql } from '../shared/analytics/clickhouse/clickhouse-sql.ts';
import { encodeEventBlock } from '../shared/analytics/clickhouse/event-native-block.ts';
import { batchFromRecords } from '../shared/analytics/events/event-batch.ts';
import { EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { ChdbTransport } from '../shared/analytics/clickhouse/chdb-transport.ts';
import type { QueryParams } from '../shared/analytics/clickhouse/clickhouse-transport.ts';
import { MemoryVisitorSalts } from '../shared/analytics/enrichment/memory-visitor-salts.ts';
import { HitEnricher } from '../shared/analytics/enrichment/enrich-hit.ts';
import { localDayRangeMicros } from '../shared/analytics/reads/local-day-range.ts';
import type { ClickSource, EventType } from '../shared/analytics/model/event-values.ts';
import type { RawHit } from '../shared/analytics/events/raw-hit.ts';
import { EventWriteBuffer } from '../shared/analytics/write-path/event-write-buffer.ts';
import type { EventSpool, SpooledBatch, SpoolEntry } from '../shared/analytics/write-path/event-spool.ts';
import { mulberry32 } from '../test/support/prng.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MICROS = 86_400_000_000n;
const RANGE_DAYS = 90;
/** Events per insert on the insert-only paths: the write buffer's default batch. */
const INGEST_BATCH = 50_000;
/** Hits pushed between two event-loop turns on the product path (the redirector's loop turns between requests). */
const PUSH_TURN = 1000;
/** After a timed ingest, the wait that lets the engine merge what it wrote (counted in CPU). */
const MERGE_SETTLE_MS = 1500;
const INGEST_CONCURRENCY = 2; // EventWriteBuffer's default maxConcurrentFlushes
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const NO_FILTERS: EventFilters = NO_EVENT_FILTERS;

// ---------------------------------------------------------------------------------------------
// Configuration

export interface AnalyticsBenchConfig {
  quick: boolean;
  /** Events generated inside the engine for browse, sync and export. */
  events: number;
  /** Hits per ingest round, for each ingest path. */
  ingestEvents: number;
  ingestRounds: number;
  /** Target size of the export range (whole days of the largest organisation). */
  exportRows: number;
  /** Timed repetitions per page scenario (after one warm-up), fewer when the budget runs out. */
  reps: number;
  /** Time after which a page scenario stops repeating (it still gets 3 repetitions). */
  scenarioBudgetMs: number;
  /** Longest wait for background merges after the bulk load. */
  mergeWaitMs: number;
  /** Where the JSON result goes; null: nowhere. */
  resultsDir: string | null;
  log: (line: string) => void;
}

function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return n;
}

/** Sizes from `--quick` and BENCH_* variables (an explicit variable wins over --quick). */
export function analyticsBenchConfig(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): AnalyticsBenchConfig {
  const quick = argv.includes('--quick');
  return {
    quick,
    events: envInt(env, 'BENCH_EVENTS', quick ? 500_000 : 10_000_000),
    ingestEvents: envInt(env, 'BENCH_INGEST_EVENTS', quick ? 20_000 : 100_000),
    ingestRounds: envInt(env, 'BENCH_INGEST_ROUNDS', quick ? 1 : 2),
    exportRows: envInt(env, 'BENCH_EXPORT_ROWS', quick ? 100_000 : 1_000_000),
    reps: envInt(env, 'BENCH_REPS', quick ? 5 : 20),
    scenarioBudgetMs: envInt(env, 'BENCH_SCENARIO_BUDGET_MS', quick ? 2_000 : 6_000),
    mergeWaitMs: envInt(env, 'BENCH_MERGE_WAIT_MS', quick ? 5_000 : 60_000),
    resultsDir: join(ROOT, 'bench', 'results'),
    log: (line) => process.stderr.write(`[analytics-bench] ${line}\n`),
  };
}

// ---------------------------------------------------------------------------------------------
// Result shapes

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  engine: string;
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

export interface RateResult {
  label: string;
  rows: number;
  ms: number;
  rowsPerSec: number;
  /** Process CPU (every thread: JS, the engine's insert and merge threads) per row, µs; measured paths only. */
  cpuMicrosPerRow?: number;
  /** 1e6 / cpuMicrosPerRow: rows per second one core sustains on this path. */
  rowsPerCoreSec?: number;
}

export interface IngestResult {
  /** Median of rounds per path. */
  product: RateResult;
  storeInsertOnly: RateResult;
  enrichOnly: RateResult;
  rawInsert: RateResult;
  /** product / rawInsert events/s. */
  ratioProductToRaw: number;
  ratioStoreInsertToRaw: number;
  rounds: RateResult[];
  /** The bulk INSERT … SELECT FROM numbers_mt() that built the data set: the engine's ceiling. */
  engineBulk: RateResult;
}

export interface LatencyStats {
  n: number;
  p50Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
}

export interface PageResult {
  name: string;
  /** Rows the page returned (store) and rows the raw query returned (limit + 1 when more exist). */
  rows: number;
  store: LatencyStats;
  raw: LatencyStats;
  rawNoFinal: LatencyStats;
  /** store p50 / raw p50 (≥ 1: what the store adds over the same SQL answered raw). */
  ratioP50: number;
  ratioP99: number;
  /** raw p50 / raw-without-FINAL p50: what duplicate-proof reads cost in the engine. */
  finalCostP50: number;
}

export interface ExportRunResult {
  label: string;
  rows: number;
  megabytes: number;
  ms: number;
  rowsPerSec: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  heapBeforeMb: number;
  heapPeakMb: number;
}

export interface ExportResult {
  range: { from: string; to: string; rows: number };
  runs: ExportRunResult[];
  /** store NDJSON rows/s / raw JSONEachRow rows/s, and store CSV / raw CSV. */
  ratioNdjsonToRaw: number;
  ratioCsvToRaw: number;
}

export interface AnalyticsBenchResult {
  startedAt: string;
  totalSeconds: number;
  machine: MachineInfo;
  config: Omit<AnalyticsBenchConfig, 'log' | 'resultsDir'>;
  dataset: { events: number; largestOrgEvents: number; orgs: number; days: number; activePartsAfterLoad: number; mergeWaitMs: number };
  ingest: IngestResult;
  pages: PageResult[];
  export: ExportResult;
  peakRssMb: number;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number): number => round(bytes / 1_048_576, 1);

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function rate(label: string, rows: number, ms: number, cpuMicros?: number): RateResult {
  const r: RateResult = { label, rows, ms: round(ms, 1), rowsPerSec: Math.round((rows * 1000) / ms) };
  if (cpuMicros !== undefined) {
    r.cpuMicrosPerRow = round(cpuMicros / rows, 2);
    r.rowsPerCoreSec = Math.round((rows * 1e6) / cpuMicros);
  }
  return r;
}

/** Wall ms and process CPU µs (all threads) of `work`, plus a settle for the engine's merges it caused. */
async function timed(work: () => Promise<void>): Promise<{ ms: number; cpuMicros: number }> {
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  // Parts written by the inserts are merged in the background: their cost belongs to this path.
  await sleep(MERGE_SETTLE_MS);
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMicros: cpu.user + cpu.system };
}

/** Nearest-rank percentile of ascending samples. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

function stats(samples: readonly number[]): LatencyStats {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50Ms: round(percentile(s, 50)),
    p99Ms: round(percentile(s, 99)),
    minMs: round(s[0] ?? Number.NaN),
    maxMs: round(s.at(-1) ?? Number.NaN),
  };
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? Number.NaN) + (s[mid] ?? Number.NaN)) / 2;
}

function choose<T>(values: readonly T[], r: number): T {
  const v = values[Math.floor(r * values.length) % values.length];
  if (v === undefined) throw new Error('choose from an empty list');
  return v;
}

function isoDate(micros: bigint): string {
  return new Date(Number(micros / 1000n)).toISOString().slice(0, 10);
}

/** Peak RSS and heap while `work` runs, sampled every 20 ms (plus before and after). */
async function withMemory<T>(work: () => Promise<T>): Promise<{ value: T; rssBefore: number; rssPeak: number; heapBefore: number; heapPeak: number }> {
  const before = process.memoryUsage();
  let rssPeak = before.rss;
  let heapPeak = before.heapUsed;
  const sample = (): void => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  };
  const timer = setInterval(sample, 20);
  try {
    const value = await work();
    sample();
    return { value, rssBefore: before.rss, rssPeak, heapBefore: before.heapUsed, heapPeak };
  } finally {
    clearInterval(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Realistic values, shared by the engine-side generator and the JS-side hits

/** [referrer, referrerDomain]; nulls weigh 45 %. */
const REFERRERS: readonly (readonly [string | null, string | null])[] = [
  ...Array.from({ length: 9 }, () => [null, null] as const),
  ['https://www.google.com/', 'www.google.com'],
  ['https://www.google.com/', 'www.google.com'],
  ['https://t.co/x9Ab3kQ', 't.co'],
  ['https://news.ycombinator.com/item?id=41424242', 'news.ycombinator.com'],
  ['https://www.facebook.com/', 'www.facebook.com'],
  ['https://www.linkedin.com/feed/', 'www.linkedin.com'],
  ['https://duckduckgo.com/', 'duckduckgo.com'],
  ['https://www.reddit.com/r/programming/comments/1abcde/some_title/', 'www.reddit.com'],
  ['https://mail.google.com/', 'mail.google.com'],
  ['https://bing.com/search?q=short+link', 'bing.com'],
  ['https://example.org/blog/2026/spring-launch', 'example.org'],
];

/** [country, countryCode, city, region]. */
const GEOS: readonly (readonly [string | null, string | null, string | null, string | null])[] = [
  ['United States', 'US', 'New York', 'New York'],
  ['United States', 'US', 'Mountain View', 'California'],
  ['United States', 'US', 'Chicago', 'Illinois'],
  ['Germany', 'DE', 'Berlin', 'Land Berlin'],
  ['United Kingdom', 'GB', 'London', 'England'],
  ['France', 'FR', 'Paris', 'Île-de-France'],
  ['India', 'IN', 'Mumbai', 'Maharashtra'],
  ['Brazil', 'BR', 'São Paulo', 'São Paulo'],
  ['Japan', 'JP', 'Tokyo', 'Tokyo'],
  [null, null, null, null],
];

/** [browserName, browserVersion, osName, osVersion, deviceType, deviceBrand, deviceModel, botCategory]. */
type UaFields = readonly [string | null, string | null, string | null, string | null, string | null, string | null, string | null, string | null];
const UA_FIELDS: readonly UaFields[] = [
  ['Chrome', '124.0.0.0', 'Windows', '10', 'DESKTOP', null, null, null],
  ['Chrome', '124.0.0.0', 'Windows', '10', 'DESKTOP', null, null, null],
  ['Mobile Safari', '17.4', 'iOS', '17.4', 'MOBILE', 'Apple', 'iPhone', null],
  ['Mobile Safari', '17.4', 'iOS', '17.4', 'MOBILE', 'Apple', 'iPhone', null],
  ['Chrome', '124.0.6367.82', 'Android', '14', 'MOBILE', 'Samsung', 'SM-S918B', null],
  ['Firefox', '125.0', 'Mac OS', '10.15', 'DESKTOP', 'Apple', 'Macintosh', null],
  ['Edge', '124.0.0.0', 'Windows', '10', 'DESKTOP', null, null, null],
  ['Safari', '17.4.1', 'Mac OS', '10.15.7', 'DESKTOP', 'Apple', 'Macintosh', null],
  ['Mobile Safari', '17.4', 'iOS', '17.4', 'TABLET', 'Apple', 'iPad', null],
  [null, null, null, null, null, null, null, 'OTHER_BOT'], // no User-Agent
];

/** User-Agent strings for the JS-side hits (parsed for real by the product's enricher). */
const USER_AGENTS: readonly (string | null)[] = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  null,
];

/** Weighted by repetition: 60 % DIRECT. */
const SOURCES: readonly ClickSource[] = ['DIRECT', 'DIRECT', 'DIRECT', 'DIRECT', 'DIRECT', 'DIRECT', 'QR_CODE', 'QR_CODE', 'API', 'EMBED'];
/** 10 % previews. */
const TYPES: readonly EventType[] = ['CLICK', 'CLICK', 'CLICK', 'CLICK', 'CLICK', 'CLICK', 'CLICK', 'CLICK', 'CLICK', 'METADATA_PREVIEW'];
const UTM_SOURCES = ['newsletter', 'twitter', 'linkedin', 'google', 'partner-site'] as const;
const UTM_MEDIUMS = ['email', 'social', 'cpc', 'referral'] as const;
const UTM_CAMPAIGNS = ['spring-2026', 'launch', 'retargeting-q2', 'black-friday', 'webinar-0412'] as const;
/** Share (percent) of the generated events per organisation; org 0 is the one browsed. */
const ORG_SHARES = [60, 25, 10, 5] as const;
/** Short codes: c0 … c4999 with a power-law head (c0 ≈ 6 % of events); the filtered page uses a tail code. */
const CODES = 5000;
const TAIL_CODE = 'c500';

function sqlLiteral(v: string | null): string {
  return v === null ? 'NULL' : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** arrayElement over a constant list, indexed by a UInt expression. */
function pickSql(values: readonly (string | null)[], indexExpr: string): string {
  return `arrayElement([${values.map(sqlLiteral).join(', ')}], 1 + (${indexExpr}) % ${values.length})`;
}

function column<T>(rows: readonly (readonly T[])[], i: number): T[] {
  return rows.map((r) => {
    const v = r[i];
    if (v === undefined) throw new Error(`missing column ${i}`);
    return v;
  });
}

/**
 * INSERT … SELECT FROM numbers_mt(n) on two threads: n events over [baseMicros, baseMicros + 90
 * days), unique UUIDv7 ids, ingested 0.2–2 s after their click (so sync order follows click order
 * closely, as in production), schema of clickhouse-sql.ts (keep_rank is derived by the table).
 */
export function generatorSql(): string {
  const cols = ['org_id', 'event_id', 'created_at', 'ingested_at', ...INSERT_COLUMNS.filter((c) => !['org_id', 'event_id', 'created_at'].includes(c))];
  const exprs: Record<string, string> = {
    org_id: `multiIf(o < ${ORG_SHARES[0]}, {org0:String}, o < ${ORG_SHARES[0] + ORG_SHARES[1]}, {org1:String}, o < ${ORG_SHARES[0] + ORG_SHARES[1] + ORG_SHARES[2]}, {org2:String}, {org3:String})`,
    event_id: 'generateUUIDv7(number)',
    created_at: `fromUnixTimestamp64Micro(toInt64({baseMicros:Int64}) + toInt64(rt % {spanMicros:UInt64}), 'UTC')`,
    ingested_at: `fromUnixTimestamp64Micro(toInt64({baseMicros:Int64}) + toInt64(rt % {spanMicros:UInt64}) + 200000 + rl % 1800000, 'UTC')`,
    short_code: `concat('c', toString(code))`,
    short_url_id: `concat('00000000-0000-4000-8000-', leftPad(toString(code), 12, '0'))`,
    event_type: pickSql(TYPES, 'rty'),
    click_source: pickSql(SOURCES, 'rs'),
    referrer: pickSql(column(REFERRERS, 0), 'rr'),
    referrer_domain: pickSql(column(REFERRERS, 1), 'rr'),
    country: pickSql(column(GEOS, 0), 'rg'),
    country_code: pickSql(column(GEOS, 1), 'rg'),
    city: pickSql(column(GEOS, 2), 'rg'),
    region: pickSql(column(GEOS, 3), 'rg'),
    browser_name: pickSql(column(UA_FIELDS, 0), 'ru'),
    browser_version: pickSql(column(UA_FIELDS, 1), 'ru'),
    os_name: pickSql(column(UA_FIELDS, 2), 'ru'),
    os_version: pickSql(column(UA_FIELDS, 3), 'ru'),
    device_type: pickSql(column(UA_FIELDS, 4), 'ru'),
    device_brand: pickSql(column(UA_FIELDS, 5), 'ru'),
    device_model: pickSql(column(UA_FIELDS, 6), 'ru'),
    bot_category: pickSql(column(UA_FIELDS, 7), 'ru'),
    utm_source: `if(rm % 10 < 3, ${pickSql(UTM_SOURCES, 'intDiv(rm, 10)')}, NULL)`,
    utm_medium: `if(rm % 10 < 3, ${pickSql(UTM_MEDIUMS, 'intDiv(rm, 100)')}, NULL)`,
    utm_campaign: `if(rm % 10 < 3, ${pickSql(UTM_CAMPAIGNS, 'intDiv(rm, 1000)')}, NULL)`,
    // One of 200,000 people, hashed with the click's UTC day (a new visitor id each day, as the salt makes it).
    visitor_id: `lower(hex(reinterpretAsFixedString(cityHash64(rv % 200000, intDiv(toInt64({baseMicros:Int64}) + toInt64(rt % {spanMicros:UInt64}), 86400000000)))))`,
  };
  const select = cols.map((c) => {
    const e = exprs[c];
    if (e === undefined) throw new Error(`no generator for column ${c}`);
    return `  ${e} AS g_${c}`;
  });
  return `INSERT INTO ${EVENTS_TABLE} (${cols.join(', ')})
SELECT
${select.join(',\n')}
FROM (
  SELECT number, rand(1) % 100 AS o, rand64(2) AS rt, rand(3) AS rl, toUInt32(pow(randCanonical(4), 3) * ${CODES}) AS code,
    rand(5) AS rty, rand(6) AS rs, rand(7) AS rr, rand(8) AS rg, rand(9) AS ru, rand(10) AS rm, rand(11) AS rv
  FROM numbers_mt({n:UInt64})
)
SETTINGS max_threads = 2, max_insert_threads = 2`;
}

/** A public-looking IPv4 pool (some land in unassigned space and geolocate to null, as in life). */
function ipPool(size: number, random: () => number): string[] {
  return Array.from({ length: size }, () => {
    let a = 1 + Math.floor(random() * 222);
    if (a === 10 || a === 127 || a === 172 || a === 192) a += 1;
    return `${a}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
  });
}

/**
 * The client addresses of every ingest round: 10,000 distinct public addresses, as in the redirect
 * bench's production row (so the geo LRU sees the reuse real traffic has, not a new address per click).
 */
const CLIENT_ADDRESSES = ipPool(10_000, mulberry32(4242));

/** `n` RawHits as the redirector would push them (its cached links, click times from now). */
function buildHits(orgId: string, n: number, seed: number): RawHit[] {
  const random = mulberry32(seed);
  const ips = CLIENT_ADDRESSES;
  const start = Date.now() * 1000;
  // One object per link, as the redirector's LRU holds them; 30 % of the links carry UTM tags.
  const links = Array.from({ length: CODES }, (_, code): HitLink => {
    const utm = random() < 0.3;
    return {
      orgId,
      id: `00000000-0000-4000-8000-${String(code).padStart(12, '0')}`,
      shortCode: `c${code}`,
      utmSource: utm ? choose(UTM_SOURCES, random()) : null,
      utmMedium: utm ? choose(UTM_MEDIUMS, random()) : null,
      utmCampaign: utm ? choose(UTM_CAMPAIGNS, random()) : null,
    };
  });
  return Array.from({ length: n }, (_, i): RawHit => {
    const [referrer] = choose(REFERRERS, random());
    return {
      link: links[Math.floor(random() ** 3 * CODES)] as HitLink,
      eventType: choose(TYPES, random()),
      clickSource: choose(SOURCES, random()),
      referrer,
      userAgent: choose(USER_AGENTS, random()),
      ip: choose(ips, random()),
      tracking: 0,
      timeZone: 'Europe/Berlin',
      clickedAtMicros: start + i * 37,
    };
  });
}

/** A spool that only holds batches in memory; the bench fails if anything reaches it. */
class MemorySpool implements EventSpool {
  readonly description = 'memory (bench)';
  private readonly entries: SpoolEntry[] = [];
  private seq = 0;

  async append(batch: SpooledBatch): Promise<void> {
    this.entries.push({ id: String(++this.seq), batch });
  }

  async peek(max: number): Promise<SpoolEntry[]> {
    return this.entries.slice(0, max);
  }

  async ack(id: string): Promise<void> {
    const i = this.entries.findIndex((e) => e.id === id);
    if (i >= 0) this.entries.splice(i, 1);
  }

  async size(): Promise<number> {
    return this.entries.length;
  }

  async close(): Promise<void> {}
}

// ---------------------------------------------------------------------------------------------
// The bench

interface Ctx {
  config: AnalyticsBenchConfig;
  store: AnalyticsStore;
  /** Raw chDB sessions on the store's path: one for queries/inserts, one for streams. */
  raw: Session;
  rawStream: Session;
  enricher: HitEnricher;
}

async function scalar(session: Session, sql: string, params: QueryParams = {}): Promise<string> {
  const r = await session.queryBindAsync(sql, params, { format: 'TabSeparated' });
  return r.text().trim();
}

async function waitForMerges(session: Session, maxMs: number): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  while (performance.now() - started < maxMs) {
    const running = Number(await scalar(session, `SELECT count() FROM system.merges WHERE table = '${EVENTS_TABLE}'`));
    quiet = running === 0 ? quiet + 1 : 0;
    if (quiet >= 3) break;
    await sleep(500);
  }
  return Math.round(performance.now() - started);
}

async function activeParts(session: Session): Promise<number> {
  return Number(await scalar(session, `SELECT count() FROM system.parts WHERE table = '${EVENTS_TABLE}' AND active`));
}

/** Runs `work` over `items` with `concurrency` workers in flight. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      if (item !== undefined) await work(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Product path: RawHit → EventWriteBuffer (enrich + batched insert) → store, until close() resolves. */
async function ingestProduct(ctx: Ctx, hits: readonly RawHit[]): Promise<{ ms: number; cpuMicros: number }> {
  const spool = new MemorySpool();
  const errors: unknown[] = [];
  const buffer = new EventWriteBuffer({ store: ctx.store, enricher: ctx.enricher, spool, onError: (e) => errors.push(e) });
  const t = await timed(async () => {
    let pushed = 0;
    for (const hit of hits) {
      buffer.push(hit);
      if (++pushed % PUSH_TURN === 0) {
        // The redirector's event loop turns between requests; and keep well inside the queue bound.
        await nextTick();
        while (buffer.metrics().queueDepth > 150_000) await sleep(1);
      }
    }
    await buffer.close();
  });
  const m = buffer.metrics();
  if (m.flushedEvents !== hits.length || m.spooledEvents !== 0 || m.droppedEvents !== 0 || errors.length > 0) {
    throw new Error(`write buffer lost events: ${JSON.stringify(m)}; first error: ${String(errors[0])}`);
  }
  return t;
}

/** The store's own insert of already-enriched records (no buffer, no enrichment), same batching and concurrency. */
async function ingestStoreInsert(ctx: Ctx, records: readonly EventRecord[]): Promise<{ ms: number; cpuMicros: number }> {
  const work = batches(records, INGEST_BATCH);
  return timed(() => pool(work, INGEST_CONCURRENCY, (b) => ctx.store.insert(b, randomUUID())));
}

/** Baseline: the same rows as pre-built Native blocks (encoded outside the timing), straight into chDB, same settings, batching and concurrency. */
async function ingestRaw(ctx: Ctx, records: readonly EventRecord[]): Promise<{ ms: number; cpuMicros: number }> {
  const blocks = batches(records, INGEST_BATCH).map((b) => encodeEventBlock(batchFromRecords(b)));
  return timed(() =>
    pool(blocks, INGEST_CONCURRENCY, (block) => ctx.store.transport.insertNative(EVENTS_TABLE, INSERT_COLUMNS, block, insertSettings(randomUUID()))),
  );
}

async function enrichOnly(ctx: Ctx, hits: readonly RawHit[]): Promise<{ ms: number; records: EventRecord[] }> {
  const started = performance.now();
  const records: EventRecord[] = [];
  for (const b of batches(hits, PUSH_TURN)) records.push(...(await ctx.enricher.enrich(b)));
  return { ms: performance.now() - started, records };
}

async function benchIngest(ctx: Ctx): Promise<Omit<IngestResult, 'engineBulk'>> {
  const { config } = ctx;
  const log = config.log;
  const n = config.ingestEvents;
  // Warm-up: opens the geo databases, parses the User-Agents, and compiles the insert path.
  const warm = buildHits(randomUUID(), 2 * PUSH_TURN, 7);
  await ingestProduct(ctx, warm);
  const rounds: RateResult[] = [];
  for (let round = 0; round < config.ingestRounds; round++) {
    const productHits = buildHits(randomUUID(), n, 100 + round);
    const product = await ingestProduct(ctx, productHits);
    rounds.push(rate(`product#${round + 1}`, n, product.ms, product.cpuMicros));
    log(`ingest round ${round + 1}: product ${rounds.at(-1)?.rowsPerSec} ev/s`);

    // The same kind of hits, enriched outside the timing for the two insert-only paths.
    const other = buildHits(randomUUID(), n, 200 + round);
    const enriched = await enrichOnly(ctx, other);
    rounds.push(rate(`enrich-only#${round + 1}`, n, enriched.ms));
    const store = await ingestStoreInsert(ctx, enriched.records);
    rounds.push(rate(`store-insert#${round + 1}`, n, store.ms, store.cpuMicros));
    const rawOrg = randomUUID();
    const rawRecords = enriched.records.map((r) => ({ ...r, orgId: rawOrg, eventId: uuidv7() }));
    const raw = await ingestRaw(ctx, rawRecords);
    rounds.push(rate(`raw-insert#${round + 1}`, n, raw.ms, raw.cpuMicros));
    log(`ingest round ${round + 1}: store.insert ${rounds.at(-2)?.rowsPerSec} ev/s, raw ${rounds.at(-1)?.rowsPerSec} ev/s`);
    const counted = await ctx.store.countEvents(productHits[0]?.link.orgId ?? '');
    if (counted !== n) throw new Error(`product ingest stored ${counted} of ${n} events`);
  }
  const med = (prefix: string): RateResult => {
    const rs = rounds.filter((r) => r.label.startsWith(`${prefix}#`));
    const ms = median(rs.map((r) => r.ms));
    const cpu = rs.every((r) => r.cpuMicrosPerRow !== undefined) ? median(rs.map((r) => (r.cpuMicrosPerRow ?? 0) * n)) : undefined;
    return rate(prefix, n, ms, cpu);
  };
  const product = med('product');
  const storeInsertOnly = med('store-insert');
  const rawInsert = med('raw-insert');
  return {
    product,
    storeInsertOnly,
    enrichOnly: med('enrich-only'),
    rawInsert,
    ratioProductToRaw: round(product.rowsPerSec / rawInsert.rowsPerSec, 3),
    ratioStoreInsertToRaw: round(storeInsertOnly.rowsPerSec / rawInsert.rowsPerSec, 3),
    rounds,
  };
}

interface Dataset {
  orgs: string[];
  baseMicros: bigint;
  largestOrgEvents: number;
  engineBulk: RateResult;
  activeParts: number;
  mergeWaitMs: number;
}

async function loadDataset(ctx: Ctx): Promise<Dataset> {
  const { config } = ctx;
  const orgs = ORG_SHARES.map(() => randomUUID());
  const todayMicros = ((BigInt(Date.now()) * 1000n) / DAY_MICROS) * DAY_MICROS;
  const baseMicros = todayMicros - BigInt(RANGE_DAYS) * DAY_MICROS;
  const params: QueryParams = {
    org0: orgs[0] ?? '',
    org1: orgs[1] ?? '',
    org2: orgs[2] ?? '',
    org3: orgs[3] ?? '',
    baseMicros: baseMicros.toString(),
    spanMicros: (BigInt(RANGE_DAYS) * DAY_MICROS).toString(),
    n: config.events,
  };
  config.log(`generating ${config.events} events in the engine …`);
  const started = performance.now();
  await ctx.raw.queryBindAsync(generatorSql(), params, { format: 'Null' });
  const engineBulk = rate('engine bulk INSERT…SELECT', config.events, performance.now() - started);
  config.log(`generated in ${(engineBulk.ms / 1000).toFixed(1)} s (${engineBulk.rowsPerSec} rows/s); waiting for merges …`);
  const mergeWaitMs = await waitForMerges(ctx.raw, config.mergeWaitMs);
  const parts = await activeParts(ctx.raw);
  const largestOrgEvents = await ctx.store.countEvents(orgs[0] ?? '');
  config.log(`org0 holds ${largestOrgEvents} events; ${parts} active parts after ${mergeWaitMs} ms of merge wait`);
  return { orgs, baseMicros, largestOrgEvents, engineBulk, activeParts: parts, mergeWaitMs };
}

interface PageScenario {
  name: string;
  store: () => Promise<number>;
  sql: string;
  params: QueryParams;
}

/** A browse page and the same SQL with the same parameters the store binds. */
function browseScenario(ctx: Ctx, name: string, orgId: string, req: BrowseRequest): PageScenario {
  const { fromMicros, toMicros } = localDayRangeMicros(req.from, req.to, 'UTC');
  const params: Record<string, string | number> = {
    orgId,
    fromMicros: fromMicros.toString(),
    toMicros: toMicros.toString(),
    limit: req.limit + 1,
    ...filterParams(req.filters),
  };
  if (req.cursor) {
    params.cursorMicros = req.cursor.createdAtMicros.toString();
    params.cursorEventId = req.cursor.eventId;
  }
  return {
    name,
    store: async () => (await ctx.store.browse(orgId, 'UTC', req)).data.length,
    sql: browseSql({ ...filterFlags(req.filters), cursor: req.cursor !== null }),
    params,
  };
}

function syncScenario(ctx: Ctx, name: string, orgId: string, req: SyncRequest): PageScenario {
  const params: Record<string, string | number> = {
    orgId,
    sinceMicros: req.sinceMicros.toString(),
    settleMillis: ctx.store.syncSettleMillis,
    limit: req.limit + 1,
    ...filterParams(req.filters),
  };
  if (req.afterEventId !== null) params.afterEventId = req.afterEventId;
  return {
    name,
    store: async () => (await ctx.store.sync(orgId, req)).data.length,
    sql: syncSql({ ...filterFlags(req.filters), afterEventId: req.afterEventId !== null }),
    params,
  };
}

function withoutFinal(sql: string): string {
  const out = sql.replace(`FROM ${EVENTS_TABLE} FINAL`, `FROM ${EVENTS_TABLE}`);
  if (out === sql) throw new Error('expected FINAL in the store SQL');
  return out;
}

async function rawRows(ctx: Ctx, sql: string, params: QueryParams): Promise<number> {
  const text = (await ctx.raw.queryBindAsync(sql, params, { format: 'JSONEachRow' })).text();
  return text === '' ? 0 : text.split('\n').filter((l) => l !== '').length;
}

async function timeIt(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function benchPages(ctx: Ctx, data: Dataset): Promise<PageResult[]> {
  const { config } = ctx;
  const org = data.orgs[0] ?? '';
  const from = isoDate(data.baseMicros);
  const to = isoDate(data.baseMicros + BigInt(RANGE_DAYS - 1) * DAY_MICROS);
  const midMicros = data.baseMicros + (BigInt(RANGE_DAYS) * DAY_MICROS) / 2n;
  const lastDay = isoDate(data.baseMicros + BigInt(RANGE_DAYS - 1) * DAY_MICROS);
  const browse = (limit: number, extra: Partial<BrowseRequest> = {}): BrowseRequest => ({
    mode: 'browse',
    from,
    to,
    cursor: null,
    limit,
    filters: NO_FILTERS,
    ...extra,
  });
  const sync = (limit: number, sinceMicros: bigint, afterEventId: string | null): SyncRequest => ({
    mode: 'sync',
    sinceMicros,
    afterEventId,
    limit,
    filters: NO_FILTERS,
  });
  const tailSince = BigInt(
    await scalar(ctx.raw, `SELECT toUnixTimestamp64Micro(max(ingested_at)) - 10000000 FROM ${EVENTS_TABLE} WHERE org_id = {org:String}`, { org }),
  );
  const cursor = { createdAtMicros: midMicros, eventId: ZERO_UUID };
  const scenarios: PageScenario[] = [
    browseScenario(ctx, 'browse 90d first page, limit 100', org, browse(100)),
    browseScenario(ctx, 'browse 90d first page, limit 5000', org, browse(5000)),
    browseScenario(ctx, 'browse 90d deep page (cursor mid-range), limit 100', org, browse(100, { cursor })),
    browseScenario(ctx, 'browse 90d deep page (cursor mid-range), limit 5000', org, browse(5000, { cursor })),
    browseScenario(ctx, `browse 90d shortCode=${TAIL_CODE} (tail link), limit 100`, org, browse(100, { filters: { ...NO_FILTERS, shortCode: TAIL_CODE } })),
    browseScenario(
      ctx,
      'browse 90d eventType=METADATA_PREVIEW+clickSource=EMBED, limit 100',
      org,
      browse(100, { filters: { ...NO_FILTERS, clickSource: 'EMBED', eventType: 'METADATA_PREVIEW' } }),
    ),
    browseScenario(ctx, 'browse 1 day (last), limit 100', org, browse(100, { from: lastDay, to: lastDay })),
    syncScenario(ctx, 'sync from the start (since=epoch), limit 100', org, sync(100, 0n, null)),
    syncScenario(ctx, 'sync from the start (since=epoch), limit 5000', org, sync(5000, 0n, null)),
    syncScenario(ctx, 'sync continuation mid-range (afterEventId), limit 100', org, sync(100, midMicros, ZERO_UUID)),
    syncScenario(ctx, 'sync continuation mid-range (afterEventId), limit 5000', org, sync(5000, midMicros, ZERO_UUID)),
    syncScenario(ctx, 'sync caught-up poll (last 10 s), limit 100', org, sync(100, tailSince, null)),
  ];
  const results: PageResult[] = [];
  for (const s of scenarios) {
    const noFinal = withoutFinal(s.sql);
    // Warm-up, and a check that the baseline is the same query: same rows (the raw one carries the +1 look-ahead row).
    const storeRows = await s.store();
    const rawCount = await rawRows(ctx, s.sql, s.params);
    const limit = Number(s.params.limit) - 1;
    if (storeRows !== Math.min(rawCount, limit)) throw new Error(`${s.name}: store returned ${storeRows} rows, raw ${rawCount}`);
    await ctx.raw.queryBindAsync(noFinal, s.params, { format: 'JSONEachRow' });
    const samples = { store: [] as number[], raw: [] as number[], noFinal: [] as number[] };
    const started = performance.now();
    for (let rep = 0; rep < config.reps; rep++) {
      if (rep >= 3 && performance.now() - started > config.scenarioBudgetMs) break;
      // Rotate the order, so neither side always runs right after the other.
      const runs: [number[], () => Promise<unknown>][] = [
        [samples.store, s.store],
        [samples.raw, async () => (await ctx.raw.queryBindAsync(s.sql, s.params, { format: 'JSONEachRow' })).bytes().length],
        [samples.noFinal, async () => (await ctx.raw.queryBindAsync(noFinal, s.params, { format: 'JSONEachRow' })).bytes().length],
      ];
      for (let k = 0; k < runs.length; k++) {
        const run = runs[(rep + k) % runs.length];
        if (run) run[0].push(await timeIt(run[1]));
      }
    }
    const store = stats(samples.store);
    const raw = stats(samples.raw);
    const rawNoFinal = stats(samples.noFinal);
    results.push({
      name: s.name,
      rows: storeRows,
      store,
      raw,
      rawNoFinal,
      ratioP50: round(store.p50Ms / raw.p50Ms),
      ratioP99: round(store.p99Ms / raw.p99Ms),
      finalCostP50: round(raw.p50Ms / rawNoFinal.p50Ms),
    });
    config.log(`${s.name}: store p50 ${store.p50Ms} ms, raw p50 ${raw.p50Ms} ms (n=${store.n})`);
  }
  return results;
}

async function benchExport(ctx: Ctx, data: Dataset): Promise<ExportResult> {
  const { config } = ctx;
  const org = data.orgs[0] ?? '';
  const perDay = data.largestOrgEvents / RANGE_DAYS;
  const days = Math.max(1, Math.min(RANGE_DAYS, Math.ceil(config.exportRows / perDay)));
  const from = isoDate(data.baseMicros);
  const to = isoDate(data.baseMicros + BigInt(days - 1) * DAY_MICROS);
  const { fromMicros, toMicros } = localDayRangeMicros(from, to, 'UTC');
  const params: QueryParams = { orgId: org, fromMicros: fromMicros.toString(), toMicros: toMicros.toString() };
  const sql = exportSql(filterFlags(NO_FILTERS));
  const rows = Number(
    await scalar(
      ctx.raw,
      `SELECT count() FROM ${EVENTS_TABLE} FINAL WHERE org_id = {orgId:String} AND created_at >= fromUnixTimestamp64Micro({fromMicros:Int64}, 'UTC') AND created_at < fromUnixTimestamp64Micro({toMicros:Int64}, 'UTC')`,
      params,
    ),
  );
  config.log(`export range ${from}..${to}: ${rows} rows`);

  const rawStream = (format: string) => async (): Promise<{ rows: number; bytes: number }> => {
    let n = 0;
    let bytes = 0;
    for await (const chunk of ctx.rawStream.queryStreamBind(sql, params, { format })) {
      n += chunk.numRows;
      bytes += chunk.numBytes;
    }
    return { rows: n, bytes };
  };
  const transportRows = async (): Promise<{ rows: number; bytes: number }> => {
    let n = 0;
    for await (const batch of ctx.store.transport.streamRows<EventRecord>(sql, params)) n += batch.length;
    return { rows: n, bytes: 0 };
  };
  const storeExport = (format: ExportFormat) => async (): Promise<{ rows: number; bytes: number }> => {
    let lines = 0;
    let bytes = 0;
    for await (const chunk of ctx.store.exportEvents(org, 'UTC', { mode: 'export', from, to, format, filters: NO_FILTERS })) {
      // The bytes as a client receives them (the raw rows above are not even counted by line).
      bytes += chunk.byteLength;
      const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
    }
    return { rows: format === 'csv' ? lines - 1 : lines, bytes };
  };
  const plan: [string, () => Promise<{ rows: number; bytes: number }>][] = [
    ['raw chdb stream JSONEachRow (bytes, discarded)', rawStream('JSONEachRow')],
    ['store.exportEvents NDJSON', storeExport('json')],
    ['raw chdb stream CSV (bytes, discarded)', rawStream('CSV')],
    ['store.exportEvents CSV', storeExport('csv')],
    ['transport.streamRows (parsed rows, no encoding)', transportRows],
  ];
  const runs: ExportRunResult[] = [];
  for (const [label, work] of plan) {
    const started = performance.now();
    const m = await withMemory(work);
    const ms = performance.now() - started;
    if (m.value.rows !== rows) throw new Error(`${label}: ${m.value.rows} rows, expected ${rows}`);
    runs.push({
      label,
      rows,
      megabytes: mb(m.value.bytes),
      ms: round(ms, 1),
      rowsPerSec: Math.round((rows * 1000) / ms),
      rssBeforeMb: mb(m.rssBefore),
      rssPeakMb: mb(m.rssPeak),
      heapBeforeMb: mb(m.heapBefore),
      heapPeakMb: mb(m.heapPeak),
    });
    config.log(`${label}: ${runs.at(-1)?.rowsPerSec} rows/s, RSS peak ${mb(m.rssPeak)} MB`);
  }
  const rps = (i: number): number => runs[i]?.rowsPerSec ?? Number.NaN;
  return { range: { from, to, rows }, runs, ratioNdjsonToRaw: round(rps(1) / rps(0), 3), ratioCsvToRaw: round(rps(3) / rps(2), 3) };
}

/** Runs the whole benchmark in a fresh chDB directory (deleted afterwards). */
export async function runAnalyticsBench(config: AnalyticsBenchConfig): Promise<AnalyticsBenchResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const loadStart = loadavg();
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'analytics-bench-'));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  const onSignal = (): void => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let store: AnalyticsStore | null = null;
  let raw: Session | null = null;
  let rawStream: Session | null = null;
  try {
    store = new AnalyticsStore(new ChdbTransport(dir));
    await store.ensureSchema();
    raw = new Session(dir);
    rawStream = new Session(dir);
    const ctx: Ctx = { config, store, raw, rawStream, enricher: new HitEnricher({ salts: new MemoryVisitorSalts() }) };
    const engine = await scalar(raw, 'SELECT version()');
    config.log(`chDB ${engine} at ${dir}`);
    const ingest = await benchIngest(ctx);
    const data = await loadDataset(ctx);
    const pages = await benchPages(ctx, data);
    const exported = await benchExport(ctx, data);
    const { log: _log, resultsDir: _dir, ...shownConfig } = config;
    return {
      startedAt: startedAt.toISOString(),
      totalSeconds: round((performance.now() - t0) / 1000, 1),
      machine: {
        cpuModel: cpus()[0]?.model ?? 'unknown',
        cores: availableParallelism(),
        memoryGb: round(totalmem() / 1024 ** 3, 1),
        node: process.version,
        engine: `chDB (ClickHouse ${engine})`,
        loadAverageStart: loadStart.map((l) => round(l)),
        loadAverageEnd: loadavg().map((l) => round(l)),
      },
      config: shownConfig,
      dataset: {
        events: config.events,
        largestOrgEvents: data.largestOrgEvents,
        orgs: data.orgs.length,
        days: RANGE_DAYS,
        activePartsAfterLoad: data.activeParts,
        mergeWaitMs: data.mergeWaitMs,
      },
      ingest: { ...ingest, engineBulk: data.engineBulk },
      pages,
      export: exported,
      peakRssMb: round(process.resourceUsage().maxRSS / 1024, 1),
    };
  } finally {
    rawStream?.close();
    raw?.close();
    await store?.close();
    cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const fmt = (n: number): string => n.toLocaleString('en-US');

export function formatReport(r: AnalyticsBenchResult): string {
  const i = r.ingest;
  const out: string[] = [];
  out.push(
    `Analytics bench — ${r.machine.cpuModel}, ${r.machine.cores} cores, ${r.machine.engine}, node ${r.machine.node}; ` +
      `${fmt(r.dataset.events)} events (${fmt(r.dataset.largestOrgEvents)} in the browsed org) over ${r.dataset.days} days; ${r.totalSeconds} s total`,
  );
  out.push(
    '',
    `Ingest (${fmt(r.config.ingestEvents)} events per path, median of ${r.config.ingestRounds} round(s); ${INGEST_CONCURRENCY} batches in flight, of ${INGEST_BATCH} events on the insert paths and of the write buffer's default size on the product path)`,
  );
  out.push(
    table(
      ['path', 'events/s', 'vs raw', 'CPU µs/event', 'events/s per core'],
      [
        [
          'product: RawHit → EventWriteBuffer (enrich + insert) → store',
          fmt(i.product.rowsPerSec),
          `${i.ratioProductToRaw}×`,
          String(i.product.cpuMicrosPerRow ?? ''),
          fmt(i.product.rowsPerCoreSec ?? 0),
        ],
        [
          '  store.insert(records) only (no enrichment, no buffer)',
          fmt(i.storeInsertOnly.rowsPerSec),
          `${i.ratioStoreInsertToRaw}×`,
          String(i.storeInsertOnly.cpuMicrosPerRow ?? ''),
          fmt(i.storeInsertOnly.rowsPerCoreSec ?? 0),
        ],
        ['  HitEnricher.enrich only (CPU, no store)', fmt(i.enrichOnly.rowsPerSec), '', '', ''],
        [
          'baseline: chDB insert of pre-built Native blocks, same batches',
          fmt(i.rawInsert.rowsPerSec),
          '1×',
          String(i.rawInsert.cpuMicrosPerRow ?? ''),
          fmt(i.rawInsert.rowsPerCoreSec ?? 0),
        ],
        ['engine ceiling: one INSERT … SELECT FROM numbers_mt() (data set load)', fmt(i.engineBulk.rowsPerSec), '', '', ''],
      ],
    ),
  );
  out.push(
    '',
    `Pages (ms over n repetitions; p99 is nearest-rank, i.e. the max when n < 100; raw = the store's SQL and parameters straight to chDB, bytes not parsed; FINAL cost = raw / raw without FINAL)`,
  );
  out.push(
    table(
      ['scenario', 'rows', 'n', 'store p50', 'store p99', 'raw p50', 'raw p99', 'store/raw p50', 'store/raw p99', 'raw no-FINAL p50', 'FINAL cost'],
      r.pages.map((p) => [
        p.name,
        p.rows,
        p.store.n,
        p.store.p50Ms,
        p.store.p99Ms,
        p.raw.p50Ms,
        p.raw.p99Ms,
        `${p.ratioP50}×`,
        `${p.ratioP99}×`,
        p.rawNoFinal.p50Ms,
        `${p.finalCostP50}×`,
      ]),
    ),
  );
  const e = r.export;
  out.push('', `Export (${fmt(e.range.rows)} rows, ${e.range.from}..${e.range.to}; NDJSON ${e.ratioNdjsonToRaw}× raw, CSV ${e.ratioCsvToRaw}× raw)`);
  out.push(
    table(
      ['path', 'rows/s', 'MB out', 's', 'RSS before', 'RSS peak', 'heap before', 'heap peak'],
      e.runs.map((x) => [x.label, fmt(x.rowsPerSec), x.megabytes, round(x.ms / 1000, 2), x.rssBeforeMb, x.rssPeakMb, x.heapBeforeMb, x.heapPeakMb]),
    ),
  );
  out.push(
    '',
    `Peak RSS of the process (bulk load included): ${r.peakRssMb} MB. Load average start ${r.machine.loadAverageStart.join(' ')}, end ${r.machine.loadAverageEnd.join(' ')}.`,
  );
  return out.join('\n');
}

/** Entry point for `npm run bench analytics [-- --quick]` and for running this file directly. */
export async function analyticsBench(): Promise<void> {
  const config = analyticsBenchConfig();
  const result = await runAnalyticsBench(config);
  process.stdout.write(`${formatReport(result)}\n`);
  if (config.resultsDir) {
    mkdirSync(config.resultsDir, { recursive: true });
    const file = join(config.resultsDir, `analytics-${result.startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`JSON: ${file}\n`);
  }
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  analyticsBench().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`analytics bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
