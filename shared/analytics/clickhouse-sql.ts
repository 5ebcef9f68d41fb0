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
//   batch at insert time. Either alone would do; both are kept.
// - ingested_at is stamped by the database (DEFAULT now64(6), one value per insert) and is the
//   sync order. The version column keep_rank decreases as ingested_at grows, so FINAL keeps the
//   FIRST-ingested copy of an event: a late duplicate can never reappear after a sync consumer's
//   position (WHERE is applied after FINAL; the filter on ingested_at is not a sort-key column).
// - PARTITION BY month of created_at: copies of one event always share a partition.
import type { EventRecord } from './analytics-event.ts';

export const EVENTS_TABLE = 'analytics_events';

/** Insert-block dedup memory: the last N batch tokens per table (1000-event batches → 100M events). */
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

/** Insert: JSONEachRow rows (see toInsertRow) into these columns; ingested_at is left to the server. */
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

export function toInsertRow(r: EventRecord): InsertRow {
  return {
    org_id: r.orgId,
    event_id: r.eventId,
    created_at: microsToDateTime64(BigInt(r.createdAtMicros)),
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
 */
export function syncSql(f: FilterFlags & { afterEventId: boolean }): string {
  const position = f.afterEventId
    ? `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')
  AND (ingested_at, event_id) > (fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC'), {afterEventId:UUID})`
    : `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')`;
  return `SELECT ${SELECT_EVENT}
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String}${position}
  AND ingested_at <= now64(6) - toIntervalMillisecond({settleMillis:UInt32})${filterClauses(f)}
ORDER BY ingested_at, event_id
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/** Export: every event of the range in browse order, streamed. Params as browseSql without cursor/limit. */
export function exportSql(f: FilterFlags): string {
  return `SELECT ${SELECT_EVENT}
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String}${CREATED_IN_RANGE}${filterClauses(f)}
ORDER BY created_at, event_id${READ_SETTINGS}, max_block_size = 8192`;
}

/** Visible (deduplicated) events of one organisation. Params: orgId. */
export const COUNT_EVENTS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL WHERE org_id = {orgId:String}${READ_SETTINGS}`;

/** Physical rows of one organisation, duplicates included (diagnostics and tests). Params: orgId. */
export const COUNT_PHYSICAL_ROWS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} WHERE org_id = {orgId:String}${READ_SETTINGS}`;

export const PING_SQL = 'SELECT 1 AS ok';
