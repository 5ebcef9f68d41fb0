// Invariant: a retention sweep's statements select raw events by their click time (created_at,
// never when they were ingested) against one cut-off per organisation: its own, else the
// service's default, else none (kept for good). Whole monthly partitions go by DROP PARTITION
// only when they end at or before every organisation's cut-off; the rest is one lightweight
// delete. The rollup is never touched by the events' sweep (aggregates keep counting swept
// events); its own retention drops and deletes by slot the same way.
import { EVENT_FIELDS } from '../events/event-schema.ts';
import { EVENTS_TABLE } from './events-table.ts';
import { ROLLUP_TABLE } from './rollup-table.ts';

const col = (name: keyof typeof EVENT_FIELDS): string => EVENT_FIELDS[name].column;

/** A partition id of the monthly tables (toYYYYMM). */
export const isMonthPartition = (p: string): boolean => /^\d{6}$/.test(p);

/** The first instant after the month partition `p` (YYYYMM), in µs since the epoch. */
export function monthPartitionEndMicros(p: string): bigint {
  const y = Number(p.slice(0, 4));
  const m = Number(p.slice(4, 6)); // 1-based: Date.UTC's month index of the next month
  return BigInt(Date.UTC(y, m, 1)) * 1000n;
}

/**
 * The organisation's cut-off (µs) of an event row. Params: ids Array(String), cuts Array(Int64)
 * (the organisations with their own retention), defaultCut Int64 (0 when the service keeps events
 * for good: nothing is older than the epoch).
 */
const CUT = `fromUnixTimestamp64Micro(transform(${col('orgId')}, {ids:Array(String)}, {cuts:Array(Int64)}, {defaultCut:Int64}), 'UTC')`;
/** Every cut-off is before this (µs): lets the engine skip newer partitions before it evaluates CUT. Param: maxCut. */
const BEFORE_MAX = `${col('createdAt')} < fromUnixTimestamp64Micro({maxCut:Int64}, 'UTC')`;

/** Events past their organisation's cut-off, duplicates collapsed. */
export const EXPIRED_EVENTS_COUNT_SQL = `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL
WHERE ${BEFORE_MAX} AND ${col('createdAt')} < ${CUT}`;

/** Removes every stored copy of the events past their organisation's cut-off (answered once applied). `table`: the events table, or each shard's local one `ON CLUSTER`. */
export function expiredEventsDeleteSql(table: string = EVENTS_TABLE): string {
  return `DELETE FROM ${table}
WHERE ${BEFORE_MAX} AND ${col('createdAt')} < ${CUT}
SETTINGS lightweight_deletes_sync = 2`;
}

/** Drops one month partition (literal id, checked) of `table` (with ` ON CLUSTER c` appended on a cluster). */
export function dropPartitionSql(table: string, partition: string): string {
  if (!isMonthPartition(partition)) throw new Error(`not a month partition: ${partition}`);
  return `ALTER TABLE ${table} DROP PARTITION ID '${partition}'`;
}

/** Rollup rows of slots before the cut-off. Param: cut (µs). */
export const EXPIRED_ROLLUP_ROWS_SQL = `SELECT toString(count()) AS n FROM ${ROLLUP_TABLE} WHERE slot < fromUnixTimestamp64Micro({cut:Int64}, 'UTC')`;

/** Removes the rollup rows of slots before the cut-off. Param: cut (µs). */
export function expiredRollupDeleteSql(table: string = ROLLUP_TABLE): string {
  return `DELETE FROM ${table} WHERE slot < fromUnixTimestamp64Micro({cut:Int64}, 'UTC') SETTINGS lightweight_deletes_sync = 2`;
}
