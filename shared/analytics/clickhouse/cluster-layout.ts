// Invariant: what changes when the analytics store runs on a ClickHouse cluster (CLICKHOUSE_CLUSTER),
// in one place. Every table is a Replicated local table `<name>_local` on each shard, behind a
// Distributed table of the single-node name, both created ON CLUSTER; so the store's reads and
// inserts name the same tables on one node and on a cluster. An insert is acknowledged only once
// it is stored on its shard (distributed_foreground_insert: never queued in the Distributed
// table's background sender), by CLICKHOUSE_INSERT_QUORUM replicas when that is above 1. Reads
// touch only the shard that holds the organisation, resolve IN subqueries on that shard's local
// table (rows are sharded by organisation, so that is all of them), and sync asks for sequential
// consistency where a quorum is set. With no cluster, nothing here applies and the store sends what
// it always sent.

/** CLICKHOUSE_CLUSTER and CLICKHOUSE_INSERT_QUORUM. */
export interface ClusterOptions {
  /** The cluster's name in the servers' remote_servers configuration, an identifier (config.ts checks it), written unquoted. */
  readonly name: string;
  /** Replicas that must hold an insert before it is acknowledged (1: the shard's receiving replica). */
  readonly insertQuorum: number;
}

/** The shard-local table behind the Distributed table `table`. */
export const localTable = (table: string): string => `${table}_local`;

/**
 * `Replicated<engine>(…)` on its own Keeper path per shard and database ({shard}, {replica} and
 * {database} are macros the servers expand), with the engine's own arguments after.
 */
export function replicatedEngine(engine: string, table: string, args = ''): string {
  return `Replicated${engine}('/clickhouse/tables/{shard}/{database}/${table}', '{replica}'${args === '' ? '' : `, ${args}`})`;
}

/** The Distributed table `table` over `<table>_local` on every shard, rows placed by `shardingKey`. */
export function distributedTable(cluster: string, table: string, shardingKey: string): string {
  const local = localTable(table);
  return `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${cluster} AS ${local}
ENGINE = Distributed(${cluster}, currentDatabase(), ${local}, ${shardingKey})`;
}

/** Settings every insert carries on a cluster, besides the single node's (dedup token, async_insert=0). */
export function clusterInsertSettings(c: ClusterOptions): Record<string, string> {
  return { distributed_foreground_insert: '1', ...(c.insertQuorum > 1 ? { insert_quorum: String(c.insertQuorum) } : {}) };
}

/** clusterInsertSettings as SQL (`, name = value, …`), for INSERT … SELECT statements that carry a SETTINGS list. */
export function clusterInsertSettingsSql(c: ClusterOptions): string {
  return Object.entries(clusterInsertSettings(c))
    .map(([k, v]) => `, ${k} = ${v}`)
    .join('');
}

/**
 * Settings appended to a read's SETTINGS list on a cluster (`, name = value, …`): the one shard of
 * the organisation (the WHERE names org_id, the sharding key's argument), IN subqueries over the
 * shard's local table, and for sync with a quorum, sequential consistency (a replica that lacks a
 * quorum-written part refuses the read instead of answering without it).
 */
export function clusterReadSettingsSql(c: ClusterOptions, read: 'sync' | 'other'): string {
  const consistent = read === 'sync' && c.insertQuorum > 1 ? ', select_sequential_consistency = 1' : '';
  return `, optimize_skip_unused_shards = 1, distributed_product_mode = 'local'${consistent}`;
}
