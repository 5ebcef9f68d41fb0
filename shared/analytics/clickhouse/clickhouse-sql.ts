// Invariant: this is the only file that spells ClickHouse SQL for analytics reads and writes
// (the table's DDL is events-table.ts). Every statement is a fixed text assembled from constant
// fragments, and every column list, insert row and printed field is derived from the event schema
// (EVENT_FIELDS); every value travels as a `{name:Type}` parameter, never inside the text. The
// same statements run on chDB (embedded) and on a ClickHouse server. Sync first picks candidate
// keys without FINAL, to narrow what FINAL reads; the rows it returns still come out of FINAL,
// and are those of plain FINAL over its window: see syncSql. Exports are printed by the engine
// (exportLinesSql): one finished NDJSON line or CSV record per event, so JS only passes text
// through.
import type { EventRecord } from '../events/analytics-event.ts';
import {
  ANALYTICS_SCHEMA_VERSION,
  EVENT_FIELDS,
  EVENT_OBJECT_FIELDS,
  INSERTED_FIELDS,
  isInstantField,
  recordKey,
  type EventFieldName,
  type ExportEncoding,
} from '../events/event-schema.ts';
import type { BotsFilter } from '../model/event-values.ts';
import type { AggregateInterval } from '../model/dimensions.ts';
import { neutraliseFormulaSql } from '../reads/csv-formula-guard.ts';
import { EVENTS_TABLE } from './events-table.ts';
import { ROLLUP_TABLE } from './rollup-table.ts';

const INSERTED = INSERTED_FIELDS;

/** Insert: the columns of every Native block (event-native-block.ts); ingested_at is left to the server. */
export const INSERT_COLUMNS: readonly string[] = INSERTED.map((k) => EVENT_FIELDS[k].column);

/**
 * Settings every analytics insert carries: the batch's dedup token, and a synchronous insert
 * (a server profile with async_insert would stamp ingested_at at its own flush and dedup
 * differently, so it is switched off per insert). No merge of the block on insert
 * (optimize_on_insert): a batch's events are distinct and the view's rows already grouped, so it
 * would only sort again; copies across inserts collapse at merges and FINAL as before.
 */
export function insertSettings(dedupToken: string): Record<string, string> {
  return { insert_deduplication_token: dedupToken, insert_deduplicate: '1', async_insert: '0', optimize_on_insert: '0' };
}

/** What every read returns per row: an EventRecord plus its sync position. */
export interface StoredEventRow extends EventRecord {
  ingestedAtMicros: string;
}

/** The read expression of a field, aliased to its record key (instants as microseconds text). */
function readColumn(k: EventFieldName): string {
  const { column, clickhouse } = EVENT_FIELDS[k];
  const key = recordKey(k);
  if (isInstantField(k)) return `toString(toUnixTimestamp64Micro(${column})) AS ${key}`;
  if (clickhouse === 'UUID') return `toString(${column}) AS ${key}`;
  return column === key ? column : `${column} AS ${key}`;
}

const SELECT_EVENT = [...INSERTED, 'ingestedAt' as const].map((k) => `\n  ${readColumn(k)}`).join(',');

/** Output settings every read carries, so both engines print the same JSON. */
const READ_SETTINGS = `
SETTINGS output_format_json_quote_64bit_integers = 1, output_format_json_escape_forward_slashes = 0, output_format_json_validate_utf8 = 1`;

export interface FilterFlags {
  shortCode: boolean;
  clickSource: boolean;
  eventType: boolean;
  /** Default include (no clause). */
  bots?: BotsFilter;
}

const BOT_CLAUSES: Record<BotsFilter, string> = {
  include: '',
  exclude: `\n  AND ${EVENT_FIELDS.botCategory.column} IS NULL`,
  only: `\n  AND ${EVENT_FIELDS.botCategory.column} IS NOT NULL`,
};

function filterClauses(f: FilterFlags): string {
  return [
    f.shortCode ? '\n  AND short_code = {shortCode:String}' : '',
    f.clickSource ? '\n  AND click_source = {clickSource:String}' : '',
    f.eventType ? '\n  AND event_type = {eventType:String}' : '',
    BOT_CLAUSES[f.bots ?? 'include'],
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

/** The sync window: the organisation's settled rows after a position (and up to one), filtered. */
function syncWindow(f: FilterFlags & { afterEventId: boolean; until?: boolean }): string {
  const position = f.afterEventId
    ? `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')
  AND (ingested_at, event_id) > (fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC'), {afterEventId:UUID})`
    : `
  AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')`;
  // A resent analytics.events message reads exactly the range it was composed from.
  const until = f.until ? `\n  AND (ingested_at, event_id) <= (fromUnixTimestamp64Micro({untilMicros:Int64}, 'UTC'), {untilEventId:UUID})` : '';
  return `org_id = {orgId:String}${position}${until}
  AND ingested_at <= now64(6) - toIntervalMillisecond({settleMillis:UInt32})${filterClauses(f)}`;
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
  const window = syncWindow(f);
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

/** Java's Instant.toString() (formatMicros): the fraction in groups of three digits, none when zero. */
function instantTextSql(column: string): string {
  // Microseconds within the second (click times are never before 1970).
  const micros = `toUnixTimestamp64Micro(${column}) % 1000000`;
  return `concat(formatDateTime(${column}, '%Y-%m-%dT%H:%i:%S', 'UTC'), multiIf(
      ${micros} = 0, '',
      ${micros} % 1000 = 0, concat('.', leftPad(toString(intDiv(${micros}, 1000)), 3, '0')),
      concat('.', leftPad(toString(${micros}), 6, '0'))), 'Z')`;
}

/** Each field of the export as SQL over the stored row, printed per its export encoding. */
function exportFieldSql(k: (typeof EVENT_OBJECT_FIELDS)[number]): { sql: string; encoding: ExportEncoding } {
  const { column, clickhouse, origin } = EVENT_FIELDS[k];
  const encoding = EVENT_FIELDS[k].export;
  if (origin === 'constant') return { sql: `toUInt8(${ANALYTICS_SCHEMA_VERSION})`, encoding };
  switch (encoding) {
    case 'uuid':
      return { sql: `toString(${column})`, encoding };
    case 'instant':
      return { sql: instantTextSql(column), encoding };
    case 'text':
      return { sql: clickhouse.startsWith('LowCardinality') ? `toString(${column})` : column, encoding };
    default:
      return { sql: column, encoding };
  }
}

/**
 * A CSV field (RFC 4180): quoted, inner quotes doubled, only when it holds a comma, quote, CR or
 * LF. A text field that a spreadsheet would read as a formula gets a leading `'` first
 * (csv-formula-guard.ts); numbers, UUIDs and instants never start with a trigger.
 */
function csvFieldSql(sql: string, kind: ExportEncoding): string {
  if (kind === 'number' || kind === 'uuid' || kind === 'instant') return `toString(${sql})`;
  // Invalid UTF-8 (never written by this store) is replaced as the JSON reads replace it. No
  // toString() first: a LowCardinality column stays one until the line is assembled, and a
  // substring search (not a regular expression) decides the quoting.
  const text = neutraliseFormulaSql(`toValidUTF8(${kind === 'nullable' ? `assumeNotNull(${sql})` : sql})`);
  const quoted = `if(multiSearchAny(${text}, ['"', ',', '\\r', '\\n']), concat('"', replaceAll(${text}, '"', '""'), '"'), ${text})`;
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
  const fields = EVENT_OBJECT_FIELDS.map((name) => ({ name, ...exportFieldSql(name) }));
  const line = format === 'json' ? EVENT_JSON_LINE : `concat(${fields.map((x) => csvFieldSql(x.sql, x.encoding)).join(", ',', ")}, '\\r\\n')`;
  return `SELECT ${line} AS line${EXPORT_FROM(f)}`;
}

/** The event object as the engine prints it: one NDJSON line (keys in table order, '\n' at the end). */
const EVENT_JSON_LINE = `formatRow('JSONEachRow', ${EVENT_OBJECT_FIELDS.map((name) => `${exportFieldSql(name).sql} AS ${name}`).join(', ')})`;

/** Output format of feedSql: its printed lines back to back. */
export const FEED_LINES_FORMAT = 'RawBLOB';

/**
 * The analytics.events feed: the first `limit` rows of the sync window (syncWindow) as stored,
 * without FINAL, in (ingested_at, event_id) order, printed one a line as
 * `<ingested_at micros>\t<event_id>\t<created_at micros>\t<event object JSON>\n` (a JSON line holds
 * no raw tab or newline). A row is shown by FINAL unless an earlier-ingested copy of its event
 * exists (keep_rank): feedCopiesSql finds those, and the caller drops them, so a page is the one
 * FINAL would give, without FINAL's merge of the organisation's key range. Params as syncSql with
 * afterEventId, plus untilMicros and untilEventId when `until`.
 */
export function feedSql(until: boolean): string {
  const printed = `concat(toString(toUnixTimestamp64Micro(ingested_at)), '\\t', toString(event_id), '\\t', toString(toUnixTimestamp64Micro(created_at)), '\\t', ${EVENT_JSON_LINE})`;
  return `SELECT ${printed}
FROM ${EVENTS_TABLE}
WHERE ${syncWindow({ shortCode: false, clickSource: false, eventType: false, afterEventId: true, until })}
ORDER BY ingested_at, event_id
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/**
 * The events of a feed page stored more than once: each one's event id and its first copy's
 * ingested_at (micros). Copies share created_at, so the lookup reads only the page's click-time
 * span. Params: orgId, fromMicros and toMicros (the span, inclusive), eventIds (Array(UUID)).
 */
export function feedCopiesSql(): string {
  return `SELECT toString(event_id) AS eventId, toString(toUnixTimestamp64Micro(min(ingested_at))) AS firstMicros
FROM ${EVENTS_TABLE}
WHERE org_id = {orgId:String}
  AND created_at BETWEEN fromUnixTimestamp64Micro({fromMicros:Int64}, 'UTC') AND fromUnixTimestamp64Micro({toMicros:Int64}, 'UTC')
  AND event_id IN {eventIds:Array(UUID)}
GROUP BY created_at, event_id
HAVING count() > 1${READ_SETTINGS}`;
}

export interface AggregateFilterFlags extends FilterFlags {
  /** Equality filters on event-schema columns (names from the schema, values as parameters). */
  columns: readonly { param: string; column: string }[];
}

function aggregateFilterClauses(f: AggregateFilterFlags): string {
  return filterClauses(f) + f.columns.map(({ param, column }) => `\n  AND ${column} = {${param}:String}`).join('');
}

const VISITOR_ID = EVENT_FIELDS.visitorId.column;

const AGGREGATE_FROM = (f: AggregateFilterFlags): string => `
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String}${CREATED_IN_RANGE}${aggregateFilterClauses(f)}`;

/**
 * Events per time slot over raw events: `slot` is the slot's start in seconds since the epoch,
 * slots of {slotSeconds} counted from {fromMicros} (a slot boundary). Params: orgId, fromMicros,
 * toMicros, fromSeconds, slotSeconds and the set filters.
 */
export function aggregateSlotsSql(f: AggregateFilterFlags): string {
  return `SELECT toString({fromSeconds:Int64} + intDiv(toUnixTimestamp64Micro(created_at) - {fromMicros:Int64}, {slotSeconds:UInt32} * 1000000) * {slotSeconds:UInt32}) AS slot,
  toString(count()) AS events${AGGREGATE_FROM(f)}
GROUP BY slot${READ_SETTINGS}`;
}

/**
 * The top values of one dimension column over raw events, with the range's total (a window over
 * every group, computed before the LIMIT). Params as aggregateSlotsSql without the slot, plus limit.
 */
export function aggregateTopSql(column: string, f: AggregateFilterFlags): string {
  return `SELECT key, toString(n) AS events, toString(sum(n) OVER ()) AS total FROM (
  SELECT CAST(${column} AS Nullable(String)) AS key, count() AS n${AGGREGATE_FROM(f)}
  GROUP BY key)
ORDER BY n DESC, key ASC NULLS LAST
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/**
 * Distinct visitors: uniqCombined64 at precision 19, which counts exactly up to well past 10,000
 * distinct values and within about 0.3% above (bench/README.md). Rows without a visitor (null) are
 * not counted.
 */
const UNIQ_VISITORS = `uniqCombined64(19)(${VISITOR_ID})`;

/** Each bucket's start in seconds since the epoch, cut in the time zone {tz}: the local hour, day, ISO week (Monday) or month. */
const BUCKET_START: Readonly<Record<AggregateInterval, string>> = {
  hour: 'toUnixTimestamp(toStartOfHour(created_at, {tz:String}))',
  day: 'toUnixTimestamp(toStartOfDay(created_at, {tz:String}))',
  week: 'toUnixTimestamp(toDateTime(toMonday(created_at, {tz:String}), {tz:String}))',
  month: 'toUnixTimestamp(toDateTime(toStartOfMonth(created_at, {tz:String}), {tz:String}))',
};

/**
 * Distinct visitors per local bucket over raw events (visitor ids change with the organisation's
 * local day, so a person counts once a day): `start` is the bucket's start in seconds. Params as
 * aggregateTopSql without limit, plus tz.
 */
export function visitorBucketsSql(interval: AggregateInterval, f: AggregateFilterFlags): string {
  return `SELECT toString(${BUCKET_START[interval]}) AS start, toString(${UNIQ_VISITORS}) AS visitors${AGGREGATE_FROM(f)}
GROUP BY start${READ_SETTINGS}`;
}

/** Distinct visitors in the range after the filters. Params as aggregateSlotsSql without the slot. */
export function visitorTotalSql(f: AggregateFilterFlags): string {
  return `SELECT toString(${UNIQ_VISITORS}) AS visitors${AGGREGATE_FROM(f)}${READ_SETTINGS}`;
}

/** The values of one dimension column with the most distinct visitors. Params as aggregateTopSql. */
export function visitorTopSql(column: string, f: AggregateFilterFlags): string {
  return `SELECT CAST(${column} AS Nullable(String)) AS key, toString(n) AS visitors, ${UNIQ_VISITORS} AS n${AGGREGATE_FROM(f)}
GROUP BY key
HAVING n > 0
ORDER BY n DESC, key ASC NULLS LAST
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/**
 * The rollup's rows a bots filter reads, and what each adds: every event (people 0), people only
 * (people 1), or bots only (every event less people: the people rows subtract; a purge's
 * two's-complement rows read as their negative Int64, so the sum stays exact). `grouped` is the
 * same over rows already summed per value and people (columns p and c).
 */
const ROLLUP_BOTS: Readonly<Record<BotsFilter, { where: string; events: string; grouped: string }>> = {
  include: { where: 'AND r.people = 0', events: 'r.events', grouped: 'c' },
  exclude: { where: 'AND r.people = 1', events: 'r.events', grouped: 'c' },
  only: { where: '', events: 'if(r.people = 0, toInt64(r.events), -toInt64(r.events))', grouped: 'if(p = 0, toInt64(c), -toInt64(c))' },
};

/**
 * Events per 15-minute slot from the rollup, for one dimension value (the plain series:
 * dimension 'time', value NULL) and a bots filter. Params: orgId, eventType, dimension, [value],
 * fromSeconds, toSeconds (both on the slot grid).
 */
export function rollupSlotsSql(hasValue: boolean, bots: BotsFilter = 'include'): string {
  const b = ROLLUP_BOTS[bots];
  return `SELECT toString(toUnixTimestamp(r.slot)) AS slot, toString(sum(${b.events})) AS events
FROM ${ROLLUP_TABLE} AS r
WHERE r.org_id = {orgId:String} AND r.event_type = {eventType:String} AND r.dimension = {dimension:String} ${b.where}
  AND ${hasValue ? 'r.value = {value:String}' : 'isNull(r.value)'}
  AND r.slot >= toDateTime({fromSeconds:Int64}, 'UTC') AND r.slot < toDateTime({toSeconds:Int64}, 'UTC')
GROUP BY r.slot${READ_SETTINGS}`;
}

/** Which of a rollup top list's three pieces (rollupTopSql) are not empty. */
export interface RollupTopPieces {
  days: boolean;
  hours: boolean;
  slots: boolean;
}

/**
 * One dimension's top values from the rollup under a bots filter, with the range's total. The
 * range is read in three disjoint pieces, each grouped by value and people: its whole UTC days
 * [dayFrom, dayTo) over `toStartOfDay(slot)`, the rest of its whole UTC hours [hourFrom, hourTo)
 * over `toStartOfHour(slot)` (which the engine answers from the rollup's projections, where a part
 * has them), and the rest by slot (empty unless the zone is off the hour). A value whose events
 * were all purged (or, for bots only, that only people sent) sums to zero: it is not a top value.
 * Params as rollupSlotsSql, plus dayFromSeconds, dayToSeconds, hourFromSeconds, hourToSeconds
 * (AggregatePlan's days and hours) and limit. `pieces` leaves out the empty ones: each read costs
 * the engine its planning (a few ms with projections) even when it finds nothing.
 */
export function rollupTopSql(bots: BotsFilter, pieces: RollupTopPieces): string {
  const b = ROLLUP_BOTS[bots];
  const rows = (range: string): string => `SELECT r.value AS v, r.people AS p, sum(r.events) AS c
    FROM ${ROLLUP_TABLE} AS r
    WHERE r.org_id = {orgId:String} AND r.event_type = {eventType:String} AND r.dimension = {dimension:String} ${b.where}
      AND ${range}
    GROUP BY v, p`;
  const within = (t: string, from: string, to: string): string => `(${t} >= toDateTime({${from}:Int64}, 'UTC') AND ${t} < toDateTime({${to}:Int64}, 'UTC'))`;
  // Each edge is its own range (not the whole less the inside): the engine then skips an empty one.
  const edges = (t: string, outer: [string, string], inner: [string, string]): string =>
    `(${within(t, outer[0], inner[0])} OR ${within(t, inner[1], outer[1])})`;
  const reads = [
    pieces.days ? rows(within('toStartOfDay(r.slot)', 'dayFromSeconds', 'dayToSeconds')) : null,
    pieces.hours ? rows(edges('toStartOfHour(r.slot)', ['hourFromSeconds', 'hourToSeconds'], ['dayFromSeconds', 'dayToSeconds'])) : null,
    pieces.slots ? rows(edges('r.slot', ['fromSeconds', 'toSeconds'], ['hourFromSeconds', 'hourToSeconds'])) : null,
  ].filter((r) => r !== null);
  return `SELECT key, toString(n) AS events, toString(sum(n) OVER ()) AS total FROM (
  SELECT v AS key, sum(${b.grouped}) AS n FROM (
    ${(reads.length > 0 ? reads : [rows('0')]).join('\n    UNION ALL\n    ')})
  GROUP BY key
  HAVING n != 0)
ORDER BY n DESC, key ASC NULLS LAST
LIMIT {limit:UInt32}${READ_SETTINGS}`;
}

/** Visible (deduplicated) events of one organisation. Params: orgId. */
export const COUNT_EVENTS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL WHERE org_id = {orgId:String}${READ_SETTINGS}`;

/** Physical rows of one organisation, duplicates included (diagnostics and tests). Params: orgId. */
export const COUNT_PHYSICAL_ROWS_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} WHERE org_id = {orgId:String}${READ_SETTINGS}`;

export const PING_SQL = 'SELECT 1 AS ok';
