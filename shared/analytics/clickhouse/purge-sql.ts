// Invariant: a purge's statements select one set of stored events: the organisation's, in the
// click-time range when one is given, of one short code when one is given, and ingested at or
// before the purge's cut-off. The count and the rollup adjustments read that set through FINAL
// (one row per event, the copy the rollup counted); the delete removes every stored copy in it.
// The rollup adjustment spreads the set over the dimensions exactly as the rollup's view does
// (DIMENSION_ROWS, 15-minute UTC slots), so subtracting it takes away exactly what those events
// added. `events` is UInt64: a subtraction is written as its two's complement (0 - n), which
// SummingMergeTree and every sum() read add modulo 2^64, so the sums come out exact and a key
// that sums to zero is dropped at the next merge.
import { EVENT_FIELDS } from '../events/event-schema.ts';
import { EVENTS_TABLE } from './events-table.ts';
import { DIMENSION_ROWS, ROLLUP_TABLE } from './rollup-table.ts';

const col = (name: keyof typeof EVENT_FIELDS): string => EVENT_FIELDS[name].column;

export interface PurgeSelection {
  range: boolean;
  shortCode: boolean;
}

/** The WHERE of a purge. Params: orgId, cutMicros; fromMicros + toMicros (half-open) and shortCode when flagged. */
export function purgeWhere(s: PurgeSelection): string {
  return [
    `${col('orgId')} = {orgId:String}`,
    ...(s.range
      ? [
          `${col('createdAt')} >= fromUnixTimestamp64Micro({fromMicros:Int64}, 'UTC')`,
          `${col('createdAt')} < fromUnixTimestamp64Micro({toMicros:Int64}, 'UTC')`,
        ]
      : []),
    ...(s.shortCode ? [`${col('shortCode')} = {shortCode:String}`] : []),
    `${col('ingestedAt')} <= fromUnixTimestamp64Micro({cutMicros:Int64}, 'UTC')`,
  ].join('\n  AND ');
}

/** Events the purge selects (duplicates collapsed). */
export function purgeCountSql(s: PurgeSelection): string {
  return `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL
WHERE ${purgeWhere(s)}`;
}

/**
 * Adds (`add`) or takes away (`subtract`) the selected events' counts in the rollup. `settings`
 * is the INSERT's SETTINGS list: a dedup token of its own (the rollup deduplicates identical
 * blocks, and two purges may well write identical ones).
 */
export function purgeRollupSql(s: PurgeSelection, sign: 'add' | 'subtract', settings: string): string {
  return `INSERT INTO ${ROLLUP_TABLE} (org_id, event_type, dimension, people, value, slot, events)
SETTINGS ${settings}
SELECT ${col('orgId')} AS org_id, ${col('eventType')} AS event_type, d.1 AS dimension, d.3 AS people, d.2 AS value,
  toDateTime(toStartOfFifteenMinutes(${col('createdAt')}), 'UTC') AS slot, ${sign === 'subtract' ? 'toUInt64(0) - count()' : 'count()'} AS events
FROM ${EVENTS_TABLE} FINAL
${DIMENSION_ROWS}
WHERE ${purgeWhere(s)}
GROUP BY org_id, event_type, dimension, people, value, slot`;
}

/** Removes every stored copy of the selected events (a lightweight delete, answered once applied). `table`: the events table, or each shard's local one `ON CLUSTER`. */
export function purgeDeleteSql(s: PurgeSelection, table: string = EVENTS_TABLE): string {
  return `DELETE FROM ${table}
WHERE ${purgeWhere(s)}
SETTINGS lightweight_deletes_sync = 2`;
}
