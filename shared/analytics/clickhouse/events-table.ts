// Invariant: the events table's DDL is generated here from the event schema (one column per
// EVENT_FIELDS entry, in table order), for a single node and for a cluster (CLICKHOUSE_CLUSTER;
// printed into deploy/clickhouse-cluster.sql by `npm run docs`); the two differ only in engine and
// placement (cluster-layout.ts).
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
// - merge_selector_base = 10 (ClickHouse's default is 5): background merges wait for about ten
//   parts of a size before merging them, so a row is rewritten fewer times on its way to a large
//   part, while few enough parts stay for reads with FINAL. Applied by ALTER after the CREATE, so
//   a server without this setting still gets its table (and keeps its own default).
import { EVENT_FIELD_NAMES, EVENT_FIELDS } from '../events/event-schema.ts';
import { distributedTable, localTable, replicatedEngine } from './cluster-layout.ts';

export const EVENTS_TABLE = 'analytics_events';

/** Insert-block dedup memory: the last N batch tokens per table (full 5000-event batches → 500M events). */
export const DEDUPLICATION_WINDOW = 100_000;

const col = (name: keyof typeof EVENT_FIELDS): string => EVENT_FIELDS[name].column;

const BODY = [
  ...EVENT_FIELD_NAMES.map((k) => `${EVENT_FIELDS[k].column} ${EVENT_FIELDS[k].clickhouse}`),
  `keep_rank UInt64 MATERIALIZED 18446744073709551615 - toUInt64(toUnixTimestamp64Micro(${col('ingestedAt')}))`,
  `INDEX ingested_at_minmax ${col('ingestedAt')} TYPE minmax GRANULARITY 1`,
  `INDEX short_code_bloom ${col('shortCode')} TYPE bloom_filter GRANULARITY 4`,
]
  .map((line) => `  ${line}`)
  .join(',\n');

const LAYOUT = `PARTITION BY toYYYYMM(${col('createdAt')})
ORDER BY (${col('orgId')}, ${col('createdAt')}, ${col('eventId')})`;

/** MergeTree settings tuned for the click stream (see above); set by ALTER, where the server has them. */
export const MERGE_SETTINGS: Readonly<Record<string, number>> = { merge_selector_base: 10 };
/** MERGE_SETTINGS as a SETTINGS list (`name = value, …`). */
const MERGE_SETTINGS_SQL = Object.entries(MERGE_SETTINGS)
  .map(([k, v]) => `${k} = ${v}`)
  .join(', ');

/** The single-node table the service creates when it is missing. */
export const CREATE_EVENTS_TABLE = `
CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (
${BODY}
)
ENGINE = ReplacingMergeTree(keep_rank)
${LAYOUT}
SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`;

/**
 * Adds every schema column a table made by an older version lacks, each after its predecessor in
 * the schema (a no-op on a current table): rows stored before read the column's default, null for
 * the nullable fields.
 */
function addMissingColumns(table: string, onCluster: string): string {
  const clauses = EVENT_FIELD_NAMES.map((k, i) => {
    const after = i === 0 ? 'FIRST' : `AFTER ${col(EVENT_FIELD_NAMES[i - 1] as keyof typeof EVENT_FIELDS)}`;
    return `ADD COLUMN IF NOT EXISTS ${EVENT_FIELDS[k].column} ${EVENT_FIELDS[k].clickhouse} ${after}`;
  });
  return `ALTER TABLE ${table}${onCluster} ${clauses.join(',\n  ')}`;
}

/** The single-node table's missing columns (after CREATE_EVENTS_TABLE). */
export const ADD_EVENT_COLUMNS = addMissingColumns(EVENTS_TABLE, '');

/** Applies MERGE_SETTINGS to the events table (new or existing). */
export const TUNE_EVENTS_TABLE = `ALTER TABLE ${EVENTS_TABLE} MODIFY SETTING ${MERGE_SETTINGS_SQL}`;

/**
 * The cluster's events tables (CLICKHOUSE_CLUSTER): a replicated local table per shard, sharded by
 * organisation behind a Distributed table of the single-node name. Every read of the API is one
 * organisation's, so it touches one shard, and every copy of an event (retries, backfill) lands on
 * the same shard, where FINAL collapses it.
 */
export function clusterEventsTables(cluster: string): string[] {
  const local = localTable(EVENTS_TABLE);
  return [
    `CREATE TABLE IF NOT EXISTS ${local} ON CLUSTER ${cluster} (
${BODY}
)
ENGINE = ${replicatedEngine('ReplacingMergeTree', EVENTS_TABLE, 'keep_rank')}
${LAYOUT}
SETTINGS replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`,
    distributedTable(cluster, EVENTS_TABLE, `cityHash64(${col('orgId')})`),
    addMissingColumns(local, ` ON CLUSTER ${cluster}`),
    addMissingColumns(EVENTS_TABLE, ` ON CLUSTER ${cluster}`),
  ];
}

/** TUNE_EVENTS_TABLE on a cluster: on every shard's local table (a Distributed table has no merges). */
export function tuneClusterEventsTable(cluster: string): string {
  return `ALTER TABLE ${localTable(EVENTS_TABLE)} ON CLUSTER ${cluster} MODIFY SETTING ${MERGE_SETTINGS_SQL}`;
}
