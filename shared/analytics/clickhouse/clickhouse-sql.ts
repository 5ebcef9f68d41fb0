// Invariant: this is the only file that spells ClickHouse SQL for analytics. Every statement is a
// fixed text assembled from constant fragments; every value travels as a `{name:Type}` parameter,
// never inside the text. The same statements run on chDB (embedded) and on a ClickHouse server.
//
// Table design:
// - ReplacingMergeTree ordered by (org_id, created_at, event_id): browse and export are range
//   reads of one organisation in click-time order, read in sort order without a full sort.
//   One event has one (org_id, created_at, event_id), so a retried batch collapses into one row.
// - Every read says FINAL, so a duplicate is invisible even before a merge has collapsed it, and
//   `insert_deduplication_token` (one token per batch, reused by every retry) drops a repeated
//   batch at insert time. Either alone would do; both are kept. (Sync first picks candidate keys
//   without FINAL, to narrow what FINAL reads; the rows it returns still come out of FINAL, and
//   are those of plain FINAL over its window: see syncSql.)
// - ingested_at is stamped by the database (DEFAULT now64(6), one value per insert) and is the
//   sync order. The version column keep_rank decreases as ingested_at grows, so FINAL keeps the
//   FIRST-ingested copy of an event: a late duplicate can never reappear after a sync consumer's
//   position (WHERE is applied after FINAL; the filter on ingested_at is not a sort-key column).
// - PARTITION BY month of created_at: copies of one event always share a partition.
// - Exports are printed by the engine (exportLinesSql): one finished NDJSON line or CSV record per
//   event, so JS only passes text through.
import { ANALYTICS_EVENT_FIELDS, ANALYTICS_SCHEMA_VERSION, type EventRecord } from '../events/analytics-event.ts';

export const EVENTS_TABLE = 'analytics_events';

/** Insert-block dedup memory: the last N batch tokens per table (full 5000-event batches → 500M events). */
export const DEDUPLICATION_WINDOW = 100_000;

export const CREATE_EVENTS_TABLE = `
CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (
  org_id String,
  event_id UUID,
  created_at DateTime64(6, 'UTC'),
  ingested_at DateTime64(6, 'UTC') DEFAULT now64(6),
  schema_version UInt8 DEFAULT 1,
  short_code String,
  short_url_id String,
  event_type LowCardinality(String),
  click_source LowCardinality(String),
  referrer Nullable(String),
  referrer_domain LowCardinality(Nullable(String)),
  country LowCardinality(Nullable(String)),
  country_code LowCardinality(Nullable(String)),
  city LowCardinality(Nullable(String)),
  region LowCardinality(Nullable(String)),
  browser_name LowCardinality(Nullable(String)),
  browser_version LowCardinality(Nullable(String)),
  os_name LowCardinality(Nullable(String)),
  os_version LowCardinality(Nullable(String)),
  device_type LowCardinality(Nullable(String)),
  device_brand LowCardinality(Nullable(String)),
  device_model LowCardinality(Nullable(String)),
  utm_source Nullable(String),
  utm_medium LowCardinality(Nullable(String)),
  utm_campaign Nullable(String),
  keep_rank UInt64 MATERIALIZED 18446744073709551615 - toUInt64(toUnixTimestamp64Micro(ingested_at)),
  INDEX ingested_at_minmax ingested_at TYPE minmax GRANULARITY 1,
  INDEX short_code_bloom short_code TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(keep_rank)
PARTITION BY toYYYYMM(created_at)
ORDER BY (org_id, created_at, event_id)
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/** Insert: rows of these columns (toInsertValues, positional); ingested_at is left to the server. */
export const INSERT_COLUMNS = [
  'org_id',
  'event_id',
  'created_at',
  'short_code',
  'short_url_id',
  'event_type',
  'click_source',
  'referrer',
  'referrer_domain',
  'country',
  'country_code',
  'city',
  'region',
  'browser_name',
  'browser_version',
  'os_name',
  'os_version',
  'device_type',
  'device_brand',
  'device_model',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const;

export type InsertColumn = (typeof INSERT_COLUMNS)[number];
export type InsertRow = Record<InsertColumn, string | null>;

/**
 * Settings every analytics insert carries: the batch's dedup token, and a synchronous insert
 * (a server profile with async_insert would stamp ingested_at at its own flush and dedup
 * differently, so it is switched off per insert).
 */
export function insertSettings(dedupToken: string): Record<string, string> {
  return { insert_deduplication_token: dedupToken, insert_deduplicate: '1', async_insert: '0' };
}

/** 'YYYY-MM-DD hh:mm:ss.ffffff' (UTC) for a DateTime64(6, 'UTC') column, from exact microseconds. */
export function microsToDateTime64(micros: bigint): string {
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const seconds = (micros - frac) / 1_000_000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${base}.${frac.toString().padStart(6, '0')}`;
}

const ORDINARY_MICROS = /^[1-9]\d{6,15}$/;
let lastSecond = '';
let lastSecondText = '';

/**
 * microsToDateTime64 of a decimal string of microseconds, without BigInt for ordinary instants
 * (after 1970-01-01T00:00:01, 16 digits at most) and reusing the text of the previous call's
 * second, since the events of a batch share seconds.
 */
export function microsTextToDateTime64(micros: string): string {
  if (!ORDINARY_MICROS.test(micros)) return microsToDateTime64(BigInt(micros));
  const second = micros.slice(0, -6);
  if (second !== lastSecond) {
    lastSecondText = new Date(Number(second) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    lastSecond = second;
  }
  return `${lastSecondText}.${micros.slice(-6)}`;
}

/** One row's values in INSERT_COLUMNS order (JSONCompactEachRow). */
export function toInsertValues(r: EventRecord): (string | null)[] {
  return [
    r.orgId,
    r.eventId,
    microsTextToDateTime64(r.createdAtMicros),
    r.shortCode,
    r.shortUrlId,
    r.eventType,
    r.clickSource,
    r.referrer,
    r.referrerDomain,
    r.country,
    r.countryCode,
    r.city,
    r.region,
    r.browserName,
    r.browserVersion,
    r.osName,
    r.osVersion,
    r.deviceType,
    r.deviceBrand,
    r.deviceModel,
    r.utmSource,
    r.utmMedium,
    r.utmCampaign,
  ];
}

/** The same row keyed by column (JSONEachRow). */
export function toInsertRow(r: EventRecord): InsertRow {
  return {
    org_id: r.orgId,
    event_id: r.eventId,
    created_at: microsTextToDateTime64(r.createdAtMicros),
    short_code: r.shortCode,
    short_url_id: r.shortUrlId,
    event_type: r.eventType,
    click_source: r.clickSource,
    referrer: r.referrer,
    referrer_domain: r.referrerDomain,
    country: r.country,
    country_code: r.countryCode,
    city: r.city,
    region: r.region,
    browser_name: r.browserName,
    browser_version: r.browserVersion,
    os_name: r.osName,
    os_version: r.osVersion,
    device_type: r.deviceType,
    device_brand: r.deviceBrand,
    device_model: r.deviceModel,
    utm_source: r.utmSource,
    utm_medium: r.utmMedium,
    utm_campaign: r.utmCampaign,
  };
}

/** What every read returns per row: an EventRecord plus its sync position. */
export interface StoredEventRow extends EventRecord {
  ingestedAtMicros: string;
}

const SELECT_EVENT = `
  org_id AS orgId,
  toString(event_id) AS eventId,
  toString(toUnixTimestamp64Micro(created_at)) AS createdAtMicros,
  short_code AS shortCode,
  short_url_id AS shortUrlId,
  event_type AS eventType,
  click_source AS clickSource,
  referrer,
  referrer_domain AS referrerDomain,
  country,
  country_code AS countryCode,
  city,
  region,
  browser_name AS browserName,
  browser_version AS browserVersion,
  os_name AS osName,
  os_version AS osVersion,
  device_type AS deviceType,
  device_brand AS deviceBrand,
  device_model AS deviceModel,
  utm_source AS utmSource,
  utm_medium AS utmMedium,
  utm_campaign AS utmCampaign,
  toString(toUnixTimestamp64Micro(ingested_at)) AS ingestedAtMicros`;

/** Output settings every read carries, so both engines print the same JSON. */
const READ_SETTINGS = `
SETTINGS output_format_json_quote_64bit_integers = 1, output_format_json_escape_forward_slashes = 0, output_format_json_validate_utf8 = 1`;

export interface FilterFlags {
  shortCode: boolean;
  clickSource: boolean;
  eventType: boolean;
}

function filterClauses(f: FilterFlags): string {
  return [
    f.shortCode ? '\n  AND short_code = {shortCode:String}' : '',
    f.clickSource ? '\n  AND click_source = {clickSource:String}' : '',
    f.eventType ? '\n  AND event_type = {eventType:String}' : '',
  ].join('');
}

const CREATED_IN_RANGE = `
  AND created_at >= fromUnixTimestamp64Micro({fromMicros:Int64}, 'UTC')
  AND created_at < fromUnixTimestamp64Micro({toMicros:Int64}, 'UTC')`;

/**
 * Browse page. Params: orgId, fromMicros, toMicros (half-open click-time range), limit, and when
 * flagged: cursorMicros + cursorEventId, shortCode, clickSource, eventType.
 */
export function browseSql(f: FilterFlags & { cursor: boolean }): string {
  const cursor = f.cursor
    ? `
  AND created_at >= fromUnixTimestamp64Micro({cursorMicros:Int64}, 'UTC')
  AND (created_at, event_id) > (fromUnixTimestamp64Micro({cursorMicros:Int64}, 'UTC'), {cursorEventId:UUID})`
    : '';
  return `SELECT ${SELECT_EVENT}
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String}${CREATED_IN_RANGE}${cursor}${filterClauses(f)}
ORDER BY created_at, event_id
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/**
 * Sync page, in (ingested_at, event_id) order, settled rows only. Params: orgId, sinceMicros,
 * settleMillis, limit, and when flagged: afterEventId, shortCode, clickSource, eventType.
 * Without afterEventId the position is inclusive (ingested_at >= since); with it, strictly after
 * (since, afterEventId).
 *
 * The page is defined as plain FINAL filtered by the sync window (position, settled, filters),
 * sorted and cut at `limit`. Read literally, FINAL must merge the organisation's whole key range,
 * because the window is not on the sort key. So the statement first takes, without FINAL, the
 * first `limit` physical rows of the window (cheap: narrow columns, the ingested_at skip index,
 * top-k), looks up every stored copy of their keys, and, when each of those keys has exactly one
 * copy and that copy lies in the window, restricts FINAL to the candidates' created_at span and
 * to ingested_at <= the last of them:
 * - every row of the true page is the surviving copy of an event, a physical row of the window;
 *   each candidate is the only copy of its event, so it survives FINAL and passes the window:
 *   the candidates are the first rows of the true order, i.e. the whole page (when there are
 *   `limit` of them) or every row of the window (when there are fewer);
 * - the restriction keeps every candidate (all copies of an event share created_at) and adds
 *   only rows positioned after them, which the LIMIT cuts; the ingested_at bound keeps out rows
 *   that settled after the candidates were taken (should now64 be read twice).
 * When a candidate key has another copy (a repeated insert not merged yet, or one merged away
 * between the two reads), the candidates may be fewer than the page needs, and the statement
 * reads plain FINAL over the whole window instead: the page is the same either way.
 */
export function syncSql(f: FilterFlags & { afterEventId: boolean }): string {
  const position = f.afterEventId
    ? `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')
  AND (ingested_at, event_id) > (fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC'), {afterEventId:UUID})`
    : `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')`;
  const window = `org_id = {orgId:String}${position}
  AND ingested_at <= now64(6) - toIntervalMillisecond({settleMillis:UInt32})${filterClauses(f)}`;
  // (each candidate key has one copy, in the window; min created_at; max created_at; max ingested_at)
  const candidates = `(
  SELECT (count() = uniqExact(created_at, event_id) AND countIf(NOT (${window})) = 0, min(created_at), max(created_at), max(ingested_at))
  FROM ${EVENTS_TABLE}
  WHERE org_id = {orgId:String} AND (created_at, event_id) IN (
    SELECT created_at, event_id
    FROM ${EVENTS_TABLE}
    WHERE ${window}
    ORDER BY ingested_at, event_id
    LIMIT {limit:UInt32}))`;
  return `WITH ${candidates} AS candidates
SELECT ${SELECT_EVENT}
FROM ${EVENTS_TABLE} FINAL
WHERE ${window}
  AND (NOT tupleElement(candidates, 1) OR (
    created_at BETWEEN tupleElement(candidates, 2) AND tupleElement(candidates, 3)
    AND ingested_at <= tupleElement(candidates, 4)))
ORDER BY ingested_at, event_id
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

const EXPORT_FROM = (f: FilterFlags): string => `
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String}${CREATED_IN_RANGE}${filterClauses(f)}
ORDER BY created_at, event_id${READ_SETTINGS}, max_block_size = 8192`;

/** Export: every event of the range in browse order, streamed. Params as browseSql without cursor/limit. */
export function exportSql(f: FilterFlags): string {
  return `SELECT ${SELECT_EVENT}${EXPORT_FROM(f)}`;
}

/** Output format to read exportLinesSql in: the `line` values back to back, unescaped. */
export const EXPORT_LINES_FORMAT = 'RawBLOB';

/** Microseconds within the second of created_at (click times are never before 1970). */
const CREATED_MICROS_PART = 'toUnixTimestamp64Micro(created_at) % 1000000';

/** Each field of the export, as SQL over the stored row: `plain` text never needs CSV quoting. */
type ExportFieldKind = 'plain' | 'string' | 'nullable' | 'number';
const EXPORT_FIELD_SQL: Readonly<Record<(typeof ANALYTICS_EVENT_FIELDS)[number], { sql: string; kind: ExportFieldKind }>> = {
  eventId: { sql: 'toString(event_id)', kind: 'plain' },
  schemaVersion: { sql: `toUInt8(${ANALYTICS_SCHEMA_VERSION})`, kind: 'number' },
  // Java's Instant.toString() (formatMicros): the fraction in groups of three digits, none when zero.
  createdAt: {
    sql: `concat(formatDateTime(created_at, '%Y-%m-%dT%H:%i:%S', 'UTC'), multiIf(
      ${CREATED_MICROS_PART} = 0, '',
      ${CREATED_MICROS_PART} % 1000 = 0, concat('.', leftPad(toString(intDiv(${CREATED_MICROS_PART}, 1000)), 3, '0')),
      concat('.', leftPad(toString(${CREATED_MICROS_PART}), 6, '0'))), 'Z')`,
    kind: 'plain',
  },
  shortCode: { sql: 'short_code', kind: 'string' },
  shortUrlId: { sql: 'short_url_id', kind: 'string' },
  eventType: { sql: 'toString(event_type)', kind: 'string' },
  clickSource: { sql: 'toString(click_source)', kind: 'string' },
  referrer: { sql: 'referrer', kind: 'nullable' },
  referrerDomain: { sql: 'referrer_domain', kind: 'nullable' },
  country: { sql: 'country', kind: 'nullable' },
  countryCode: { sql: 'country_code', kind: 'nullable' },
  city: { sql: 'city', kind: 'nullable' },
  region: { sql: 'region', kind: 'nullable' },
  browserName: { sql: 'browser_name', kind: 'nullable' },
  browserVersion: { sql: 'browser_version', kind: 'nullable' },
  osName: { sql: 'os_name', kind: 'nullable' },
  osVersion: { sql: 'os_version', kind: 'nullable' },
  deviceType: { sql: 'device_type', kind: 'nullable' },
  deviceBrand: { sql: 'device_brand', kind: 'nullable' },
  deviceModel: { sql: 'device_model', kind: 'nullable' },
  utmSource: { sql: 'utm_source', kind: 'nullable' },
  utmMedium: { sql: 'utm_medium', kind: 'nullable' },
  utmCampaign: { sql: 'utm_campaign', kind: 'nullable' },
};

/** A CSV field (RFC 4180): quoted, inner quotes doubled, only when it holds a comma, quote, CR or LF. */
function csvFieldSql(sql: string, kind: ExportFieldKind): string {
  if (kind === 'number' || kind === 'plain') return `toString(${sql})`;
  // Invalid UTF-8 (never written by this store) is replaced as the JSON reads replace it.
  const text = `toValidUTF8(toString(${kind === 'nullable' ? `assumeNotNull(${sql})` : sql}))`;
  const quoted = `if(match(${text}, '[",\\r\\n]'), concat('"', replaceAll(${text}, '"', '""'), '"'), ${text})`;
  return kind === 'nullable' ? `if(isNull(${sql}), '', ${quoted})` : quoted;
}

/**
 * Export as text: one row per event in browse order, whose only column `line` is the event's
 * NDJSON line (the spec's event object, keys in table order, '\n') or CSV record (',' between
 * fields, CRLF), to be read in EXPORT_LINES_FORMAT. The engine writes the JSON strings; it escapes
 * exactly as JSON.stringify except for what jsonStringifyEscapes (event-export.ts) rewrites.
 * Params as exportSql.
 */
export function exportLinesSql(f: FilterFlags, format: 'json' | 'csv'): string {
  const fields = ANALYTICS_EVENT_FIELDS.map((name) => ({ name, ...EXPORT_FIELD_SQL[name] }));
  const line =
    format === 'json'
      ? `formatRow('JSONEachRow', ${fields.map((x) => `${x.sql} AS ${x.name}`).join(', ')})`
      : `concat(${fields.map((x) => csvFieldSql(x.sql, x.kind)).join(", ',', ")}, '\\r\\n')`;
  return `SELECT ${line} AS line${EXPORT_FROM(f)}`;
}

/** Visible (deduplicated) events of one organisation. Params: orgId. */
export const COUNT_EVENTS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL WHERE org_id = {orgId:String}${READ_SETTINGS}`;

/** Physical rows of one organisation, duplicates included (diagnostics and tests). Params: orgId. */
export const COUNT_PHYSICAL_ROWS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} WHERE org_id = {orgId:String}${READ_SETTINGS}`;

export const PING_SQL = 'SELECT 1 AS ok';
