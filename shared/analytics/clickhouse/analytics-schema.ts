// Invariant: the service's ClickHouse schema and the settings its statements carry, for one node
// or for a cluster (CLICKHOUSE_CLUSTER), come from here. AnalyticsStore.ensureSchema runs
// `statements` in order (the view with the t0 it picks), and `npm run docs` prints the cluster's
// into deploy/clickhouse-cluster.sql (clusterSchemaSql): one code path, so the file is what the
// service runs. On one node every statement and setting is the single-node constant it always was.
import { type ClusterOptions, clusterInsertSettings, clusterInsertSettingsSql, clusterReadSettingsSql, localTable } from './cluster-layout.ts';
import { insertSettings } from './clickhouse-sql.ts';
import { ADD_EVENT_COLUMNS, CREATE_EVENTS_TABLE, clusterEventsTables, EVENTS_TABLE, TUNE_EVENTS_TABLE, tuneClusterEventsTable } from './events-table.ts';
import {
  addRollupProjections,
  CLUSTER_ROLLUP_T0_LEAD_MS,
  clusterRollupTables,
  CREATE_ROLLUP_BACKFILL_TABLE,
  CREATE_ROLLUP_TABLE,
  createClusterRollupView,
  createRollupView,
  dropLegacyRollupTables,
  dropLegacyRollupView,
  materializeRollupProjections,
  ROLLUP_BACKFILL_TABLE,
  ROLLUP_T0_LEAD_MS,
  ROLLUP_TABLE,
  ROLLUP_VIEW,
  rollupViewQuery,
  upgradeClusterRollupView,
} from './rollup-table.ts';

export interface AnalyticsSchema {
  /** null on one node. */
  readonly cluster: ClusterOptions | null;
  /** The events tables, created first, then given the columns an older version's tables lack. */
  readonly eventsTables: readonly string[];
  /** The rollup and its backfill bookkeeping, created before the view. */
  readonly rollupTables: readonly string[];
  /** The rollup's view, counting what is ingested from `t0Micros` on. */
  view(t0Micros: bigint): string;
  /** How far ahead of the server's clock a new view's t0 is set. */
  readonly t0LeadMs: number;
  /** Replaces an older view's query with the current one, keeping its t0. */
  upgradeView(t0Micros: bigint): string;
  /**
   * The events table's merge settings and the rollup's projections (after both exist; a server
   * may not know a setting or refuse the projection, and reads stay correct without them).
   */
  readonly tune: readonly string[];
  /** Every table and view the statements create, and the tables `tune` alters. */
  readonly objects: readonly string[];
  readonly tunedTable: string;
  readonly rollupTable: string;
  /** Builds the projections for a rollup made before them (run once, when `tune` added them). */
  readonly materializeProjection: string;
  /** Active partitions of a table (rows `{p}`; a cluster's local table). Params: table, and db on a cluster (currentDatabase()). */
  readonly partitionsSql: string;
  /** Settings of every Native insert of events. */
  insertSettings(dedupToken: string): Record<string, string>;
  /** Appended to the SETTINGS list of an INSERT … SELECT ('' on one node). */
  readonly insertSettingsSql: string;
  /** Records a backfilled partition. Params: p, t0. */
  readonly markDoneSql: string;
  /** Appended to a read's SETTINGS list ('' on one node). */
  readSettingsSql(read: 'sync' | 'other'): string;
  /** Drops the first rollup's view, before this one's is made (it would go on counting). */
  readonly dropLegacyView: string;
  /** Drops the first rollup's tables, once this one's backfill is done. */
  readonly dropLegacyTables: readonly string[];
}

const MARK_DONE_COLUMNS = `${ROLLUP_BACKFILL_TABLE} (partition_id, t0_micros, done)`;
const MARK_DONE_VALUES = 'VALUES ({p:String}, {t0:Int64}, 1)';

const SINGLE_NODE: AnalyticsSchema = {
  cluster: null,
  eventsTables: [CREATE_EVENTS_TABLE, ADD_EVENT_COLUMNS],
  rollupTables: [CREATE_ROLLUP_TABLE, CREATE_ROLLUP_BACKFILL_TABLE],
  view: createRollupView,
  t0LeadMs: ROLLUP_T0_LEAD_MS,
  upgradeView: (t0) => `ALTER TABLE ${ROLLUP_VIEW} MODIFY QUERY ${rollupViewQuery(t0)}`,
  tune: [TUNE_EVENTS_TABLE, ...addRollupProjections(ROLLUP_TABLE, '')],
  objects: [EVENTS_TABLE, ROLLUP_TABLE, ROLLUP_BACKFILL_TABLE, ROLLUP_VIEW],
  tunedTable: EVENTS_TABLE,
  rollupTable: ROLLUP_TABLE,
  materializeProjection: materializeRollupProjections(ROLLUP_TABLE, ''),
  partitionsSql: 'SELECT DISTINCT partition_id AS p FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active ORDER BY p',
  insertSettings,
  insertSettingsSql: '',
  markDoneSql: `INSERT INTO ${MARK_DONE_COLUMNS} ${MARK_DONE_VALUES}`,
  readSettingsSql: () => '',
  dropLegacyView: dropLegacyRollupView(''),
  dropLegacyTables: dropLegacyRollupTables(null),
};

/** The schema and statement settings for one node (`cluster` null) or for a cluster. */
export function analyticsSchema(cluster: ClusterOptions | null): AnalyticsSchema {
  if (cluster === null) return SINGLE_NODE;
  const c = cluster.name;
  const insertSql = clusterInsertSettingsSql(cluster);
  return {
    cluster,
    eventsTables: clusterEventsTables(c),
    rollupTables: clusterRollupTables(c),
    view: (t0) => createClusterRollupView(c, t0),
    t0LeadMs: CLUSTER_ROLLUP_T0_LEAD_MS,
    upgradeView: (t0) => upgradeClusterRollupView(c, t0),
    tune: [tuneClusterEventsTable(c), ...addRollupProjections(localTable(ROLLUP_TABLE), ` ON CLUSTER ${c}`)],
    objects: [...[EVENTS_TABLE, ROLLUP_TABLE, ROLLUP_BACKFILL_TABLE].flatMap((t) => [localTable(t), t]), ROLLUP_VIEW],
    tunedTable: localTable(EVENTS_TABLE),
    rollupTable: localTable(ROLLUP_TABLE),
    materializeProjection: materializeRollupProjections(localTable(ROLLUP_TABLE), ` ON CLUSTER ${c}`),
    // Every replica's parts: a shard holds only its organisations' months.
    partitionsSql: `SELECT DISTINCT partition_id AS p FROM clusterAllReplicas(${c}, system.parts) WHERE database = {db:String} AND table = {table:String} AND active ORDER BY p`,
    insertSettings: (token) => ({ ...insertSettings(token), ...clusterInsertSettings(cluster) }),
    insertSettingsSql: insertSql,
    markDoneSql: `INSERT INTO ${MARK_DONE_COLUMNS} SETTINGS ${insertSql.slice(2)} ${MARK_DONE_VALUES}`,
    readSettingsSql: (read) => clusterReadSettingsSql(cluster, read),
    dropLegacyView: dropLegacyRollupView(` ON CLUSTER ${c}`),
    dropLegacyTables: dropLegacyRollupTables(c),
  };
}

/** Every DDL statement ensureSchema runs, in order, with the view counting from `t0Micros`. */
export function schemaStatements(schema: AnalyticsSchema, t0Micros: bigint): string[] {
  return [...schema.eventsTables, schema.dropLegacyView, ...schema.rollupTables, schema.view(t0Micros), ...schema.tune];
}

/** The cluster name deploy/clickhouse-cluster.sql is printed for (the fleet overlay's CLICKHOUSE_CLUSTER). */
export const EXAMPLE_CLUSTER_NAME = 'events';

/**
 * What CLICKHOUSE_CLUSTER=`cluster` makes the service run, as a SQL file (deploy/clickhouse-cluster.sql
 * for the cluster `events`). The view counts from t0 = 0, as for a new cluster: events copied in
 * after these statements are counted as they arrive (see docs/scale-out.md).
 */
export function clusterSchemaSql(cluster: string): string {
  const statements = schemaStatements(analyticsSchema({ name: cluster, insertQuorum: 1 }), 0n);
  return `-- The analytics tables on the ClickHouse cluster \`${cluster}\`: what the service runs at start with
-- CLICKHOUSE_CLUSTER=${cluster} (every statement ON CLUSTER, each idempotent), printed by \`npm run docs\`
-- (this file, for the cluster \`${EXAMPLE_CLUSTER_NAME}\`) and \`shortlink migrate clickhouse --print\` (any
-- CLICKHOUSE_CLUSTER). Generated from shared/analytics/events/event-schema.ts: edit the schema, not
-- this file. The {shard}, {replica} and {database} macros come from the servers' configuration.
-- Each table is a Replicated local table per shard (<name>_local) behind a Distributed table of the
-- single-node name, sharded by organisation; the rollup's view reads and writes the local tables.
-- The view below counts from t0 = 0 (a new cluster); the service sets t0 to its start instead and
-- counts the events stored before it into the rollup itself (docs/scale-out.md).

${statements.map((s) => `${s.trim()};\n`).join('\n')}`;
}
