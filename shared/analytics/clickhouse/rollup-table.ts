// Invariant: the aggregates rollup is generated here from the event schema: a SummingMergeTree of
// event counts per (organisation, event type, dimension, people, value, 15-minute UTC slot), where
// `people` 0 counts every event and 1 people's only (no bot category), fed by a
// materialized view on the events table, in the same database (single node) or on each shard's
// local tables (CLICKHOUSE_CLUSTER). Reads always sum (a part may hold a key twice until merged).
//
// Grain: 15 minutes. Every UTC offset in use since 1972 is a whole number of quarter hours
// (+05:30 India, +05:45 Nepal, +08:45 Eucla, +12:45 Chatham), so every local midnight and every
// local hour start falls on a slot boundary and a day, week, month or hour bucket in any zone is
// a whole number of slots: the series is exact. An hourly grain could not cut a Kathmandu or
// Kolkata day. A range that is not on the grid (historic offsets) is read from raw events.
//
// Exactly the raw counts. The events table keeps the first-ingested copy of an event (FINAL).
// The view counts an inserted row only when no copy of that event was ingested before its insert:
// it looks the block's keys up in the table (through merge(), which reads the table itself, not
// the block) restricted to earlier ingested_at. So
// - a retried batch with its dedup token is dropped by the events table and never reaches the
//   view (ClickHouse pushes no deduplicated block to views);
// - a batch stored again under another token (a lost answer, spool pieces) finds its events
//   already ingested and adds nothing;
// - the backfill of an existing installation counts, per partition, the FINAL copy of each event
//   ingested before t0, a literal of the view set 2 s after its creation (30 s on a cluster,
//   whose nodes create it from the DDL queue; an insert stamped later was planned with the view);
//   the view counts only rows ingested from t0 on, and an event whose first copy predates t0 is
//   excluded by its look-up. The backfill starts once t0 has passed by the settle margin and runs
//   in the background; until it is done, reads use raw events. Each partition's backfill is one
//   INSERT … SELECT with a dedup token naming the partition and t0, so a repeated or resumed
//   backfill (another process, a crash) adds nothing twice.
// Assumption (as for sync): copies of one event are not inserted concurrently within the insert
// timeout of each other in a way that both look-ups miss the other (a retry waits for the failed
// insert's timeout first).
import { EVENT_FIELDS } from '../events/event-schema.ts';
import { ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import { distributedTable, localTable, replicatedEngine } from './cluster-layout.ts';
import { DEDUPLICATION_WINDOW, EVENTS_TABLE } from './events-table.ts';

export const ROLLUP_TABLE = 'analytics_rollup_15m_v2';
export const ROLLUP_VIEW = 'analytics_rollup_15m_v2_mv';
/** Which partitions of the events table were counted into the rollup, and at which t0. */
export const ROLLUP_BACKFILL_TABLE = 'analytics_rollup_v2_backfill';
/**
 * The first rollup's objects (no `people` rows). A start drops its view, so it counts nothing
 * more, and its tables once this rollup's backfill is done: this one is rebuilt from raw events.
 */
export const LEGACY_ROLLUP = { view: 'analytics_rollup_15m_mv', tables: ['analytics_rollup_15m', 'analytics_rollup_backfill'] } as const;
export const ROLLUP_SLOT_SECONDS = 900;
/** The dimension value of the plain time series (every event counts once in it). */
export const TIME_DIMENSION = 'time';

const col = (name: keyof typeof EVENT_FIELDS): string => EVENT_FIELDS[name].column;

const ROLLUP_BODY = `  org_id String,
  event_type LowCardinality(String),
  dimension LowCardinality(String),
  people UInt8,
  value Nullable(String),
  slot DateTime('UTC'),
  events UInt64`;
const ROLLUP_LAYOUT = `PARTITION BY toYYYYMM(slot)
ORDER BY (org_id, event_type, dimension, people, value, slot)`;

/** The (dimension, value, people) tuples of an event: the time series and every rollup dimension. */
const tuples = (people: 0 | 1): string =>
  [
    `tuple('${TIME_DIMENSION}', CAST(NULL AS Nullable(String)), toUInt8(${people}))`,
    ...ROLLUP_DIMENSIONS.map((d) => `tuple('${d}', CAST(${col(d)} AS Nullable(String)), toUInt8(${people}))`),
  ].join(', ');

/**
 * One row per event and dimension (plus the time series), counted per slot: `people` 0 counts every
 * event, and a person's event (no bot category; `person` is the SQL saying so) counts once more
 * with `people` 1, so bots=exclude reads people 1, bots=only the difference, both from the rollup.
 */
export function dimensionRows(person: string): string {
  return `ARRAY JOIN arrayConcat([${tuples(0)}], if(${person}, [${tuples(1)}], [])) AS d`;
}

/** dimensionRows over stored events, one at a time. */
export const DIMENSION_ROWS = dimensionRows(`isNull(${col('botCategory')})`);

const ROLLUP_SELECT = `SELECT ${col('orgId')} AS org_id, ${col('eventType')} AS event_type, d.1 AS dimension, d.3 AS people, d.2 AS value,
  toDateTime(toStartOfFifteenMinutes(${col('createdAt')}), 'UTC') AS slot, count() AS events`;
const ROLLUP_GROUP = 'GROUP BY org_id, event_type, dimension, people, value, slot';

/**
 * The view's query over an inserted block of `source` (the table name the view reads from). Rows
 * ingested before `t0Micros` are the backfill's (see above). The block's new events are first
 * grouped by their dimension values (one row per distinct combination, over the LowCardinality
 * columns as they are), and only those groups are spread over the dimensions and summed: the
 * spread then handles a few rows instead of eleven per event (an inserted event cost the view
 * 2.6 µs of chDB CPU spread first, 0.7–2.1 µs grouped first: bench/README).
 */
function viewQuery(source: string, t0Micros: bigint): string {
  const key = `(${col('orgId')}, ${col('createdAt')}, ${col('eventId')})`;
  const dims = ROLLUP_DIMENSIONS.map((d) => col(d)).join(', ');
  return `SELECT ${col('orgId')} AS org_id, ${col('eventType')} AS event_type, d.1 AS dimension, d.3 AS people, d.2 AS value, slot, sum(n) AS events
FROM (
  SELECT ${col('orgId')}, ${col('eventType')}, toDateTime(toStartOfFifteenMinutes(${col('createdAt')}), 'UTC') AS slot, ${dims},
    isNull(${col('botCategory')}) AS person, count() AS n
  FROM ${source}
  WHERE ${col('ingestedAt')} >= fromUnixTimestamp64Micro(${t0Micros}, 'UTC')
    AND ${key} NOT IN (
    SELECT ${col('orgId')}, ${col('createdAt')}, ${col('eventId')} FROM merge(currentDatabase(), '^${source}$')
    WHERE ${col('orgId')} IN (SELECT ${col('orgId')} FROM ${source})
      AND ${col('createdAt')} >= (SELECT min(${col('createdAt')}) FROM ${source})
      AND ${col('createdAt')} <= (SELECT max(${col('createdAt')}) FROM ${source})
      AND ${col('ingestedAt')} < (SELECT min(${col('ingestedAt')}) FROM ${source}))
  GROUP BY ${col('orgId')}, ${col('eventType')}, slot, ${dims}, person)
${dimensionRows('person')}
${ROLLUP_GROUP}`;
}

/** The view's query as it is now, for an existing view whose query is older (`ALTER … MODIFY QUERY` keeps its t0). */
export function rollupViewQuery(t0Micros: bigint): string {
  return viewQuery(EVENTS_TABLE, t0Micros);
}

/** rollupViewQuery on a cluster: every node's view reads its local events table. */
export function upgradeClusterRollupView(cluster: string, t0Micros: bigint): string {
  return `ALTER TABLE ${ROLLUP_VIEW} ON CLUSTER ${cluster} MODIFY QUERY ${viewQuery(localTable(EVENTS_TABLE), t0Micros)}`;
}

/** A mark of the current query in the view's stored definition (an older view lacks it). */
export const ROLLUP_VIEW_QUERY_MARK = 'sum(n) AS events';

/** Drops the first rollup's view (`onCluster`: ' ON CLUSTER c', or ''). */
export const dropLegacyRollupView = (onCluster: string): string => `DROP VIEW IF EXISTS ${LEGACY_ROLLUP.view}${onCluster}`;

/** Drops the first rollup's tables (with their local tables on a cluster). */
export function dropLegacyRollupTables(cluster: string | null): string[] {
  const names = cluster === null ? LEGACY_ROLLUP.tables : LEGACY_ROLLUP.tables.flatMap((t) => [t, localTable(t)]);
  return names.map((t) => `DROP TABLE IF EXISTS ${t}${cluster === null ? '' : ` ON CLUSTER ${cluster}`}`);
}

/**
 * The rollup's projections by UTC day and by UTC hour: the same counts summed per (organisation,
 * event type, dimension, people, day or hour, value), in that order, kept by the engine on every
 * insert, merge and delete (rebuilt where rows are summed or deleted, which SummingMergeTree requires
 * to be said). A top list reads its range's whole UTC days by day, the whole hours at its edges by
 * hour, and only a quarter-hour zone's last minutes from the 15-minute rows (rollupTopSql), each a
 * contiguous range of its ordering: the 15-minute rows are ordered by value before slot, so a time
 * range over every value reads the whole month. A server that refuses them (an older ClickHouse
 * without those settings) answers the same from the 15-minute rows.
 */
export const ROLLUP_PROJECTIONS = { day: 'by_day', hour: 'by_hour' } as const;
const projection = (name: string, grain: string): string =>
  `ADD PROJECTION IF NOT EXISTS ${name} (SELECT org_id, event_type, dimension, people, ${grain}(slot) AS t, value, sum(events)
  GROUP BY org_id, event_type, dimension, people, t, value)`;

/** Gives a rollup table (the local one on a cluster; `onCluster` ' ON CLUSTER c' or '') its projections; idempotent. */
export function addRollupProjections(table: string, onCluster: string): string[] {
  return [
    `ALTER TABLE ${table}${onCluster} MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild', lightweight_mutation_projection_mode = 'rebuild'`,
    `ALTER TABLE ${table}${onCluster} ${projection(ROLLUP_PROJECTIONS.day, 'toStartOfDay')}`,
    `ALTER TABLE ${table}${onCluster} ${projection(ROLLUP_PROJECTIONS.hour, 'toStartOfHour')}`,
  ];
}

/** Builds the projections for the parts written before them (a background mutation). */
export const materializeRollupProjections = (table: string, onCluster: string): string =>
  `ALTER TABLE ${table}${onCluster} MATERIALIZE PROJECTION ${ROLLUP_PROJECTIONS.day}, MATERIALIZE PROJECTION ${ROLLUP_PROJECTIONS.hour}`;

export const CREATE_ROLLUP_TABLE = `
CREATE TABLE IF NOT EXISTS ${ROLLUP_TABLE} (
${ROLLUP_BODY}
)
ENGINE = SummingMergeTree(events)
${ROLLUP_LAYOUT}
SETTINGS allow_nullable_key = 1, non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/** The view, counting what is ingested from `t0Micros` on (a literal: a view takes no parameters). */
export function createRollupView(t0Micros: bigint): string {
  return `
CREATE MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_VIEW} TO ${ROLLUP_TABLE} AS
${viewQuery(EVENTS_TABLE, t0Micros)}`;
}

/** The t0 of an existing view, read back from its definition (whoever created it). */
export function rollupViewT0(createQuery: string): bigint | null {
  const m = /fromUnixTimestamp64Micro\((\d+)/.exec(createQuery);
  return m?.[1] ? BigInt(m[1]) : null;
}

/** How far in the future a new view's t0 lies: inserts stamped after it were planned with the view. */
export const ROLLUP_T0_LEAD_MS = 2000;
/**
 * The same on a cluster, where every node creates the view from the distributed DDL queue: the
 * CREATE … ON CLUSTER must have run on every node before t0.
 */
export const CLUSTER_ROLLUP_T0_LEAD_MS = 30_000;

const BACKFILL_BODY = `  partition_id String,
  t0_micros Int64,
  done UInt8`;

export const CREATE_ROLLUP_BACKFILL_TABLE = `
CREATE TABLE IF NOT EXISTS ${ROLLUP_BACKFILL_TABLE} (
${BACKFILL_BODY}
)
ENGINE = ReplacingMergeTree(done)
ORDER BY partition_id`;

/**
 * Counts one partition of the events table into the rollup: the surviving (first-ingested) copy of
 * each event ingested before t0. Params: partitionId, t0Micros. The caller adds the dedup token.
 */
export const BACKFILL_PARTITION_SQL = `INSERT INTO ${ROLLUP_TABLE} (org_id, event_type, dimension, people, value, slot, events)
${ROLLUP_SELECT}
FROM ${EVENTS_TABLE} FINAL
${DIMENSION_ROWS}
WHERE _partition_id = {partitionId:String} AND ${col('ingestedAt')} < fromUnixTimestamp64Micro({t0Micros:Int64}, 'UTC')
${ROLLUP_GROUP}
ORDER BY org_id, event_type, dimension, people, value, slot`;

/**
 * The cluster's rollup tables (CLICKHOUSE_CLUSTER): per shard, a replicated local rollup and the
 * backfill's bookkeeping, each behind a Distributed table of the single-node name. The rollup is
 * sharded like the events (by organisation), so the backfill's INSERT … SELECT through the
 * Distributed tables puts each count on the shard of its events; the bookkeeping by partition.
 */
export function clusterRollupTables(cluster: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${localTable(ROLLUP_TABLE)} ON CLUSTER ${cluster} (
${ROLLUP_BODY}
)
ENGINE = ${replicatedEngine('SummingMergeTree', ROLLUP_TABLE, 'events')}
${ROLLUP_LAYOUT}
SETTINGS allow_nullable_key = 1, replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`,
    distributedTable(cluster, ROLLUP_TABLE, `cityHash64(${col('orgId')})`),
    `CREATE TABLE IF NOT EXISTS ${localTable(ROLLUP_BACKFILL_TABLE)} ON CLUSTER ${cluster} (
${BACKFILL_BODY}
)
ENGINE = ${replicatedEngine('ReplacingMergeTree', ROLLUP_BACKFILL_TABLE, 'done')}
ORDER BY partition_id`,
    distributedTable(cluster, ROLLUP_BACKFILL_TABLE, 'cityHash64(partition_id)'),
  ];
}

/**
 * The view on a cluster: on every shard, from the local events table into the local rollup, so
 * every copy of an event meets the same look-up (copies of an event share a shard).
 */
export function createClusterRollupView(cluster: string, t0Micros: bigint): string {
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_VIEW} ON CLUSTER ${cluster} TO ${localTable(ROLLUP_TABLE)} AS
${viewQuery(localTable(EVENTS_TABLE), t0Micros)}`;
}
