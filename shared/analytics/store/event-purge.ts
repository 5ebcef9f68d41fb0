// Invariant: after a purge, browse, sync, export and aggregates (rollup included) agree: the
// selected events are gone from all of them. The selection (purge-sql.ts) is fixed by a cut-off,
// the server's clock when the purge starts: only events ingested at or before it are taken, and
// the purge waits the sync settling margin first, so every insert stamped before the cut-off is
// visible to it (the store's sync assumption). Then, in this order:
//   1. the rollup is decreased by the selection's counts (read through FINAL, spread like the view);
//   2. the raw rows are removed with a lightweight delete;
//   3. should the delete fail, what it left of the selection is added back to the rollup, so the
//      rollup again equals the raw events (rollup - selection + left = raw), and the error is thrown.
// The rollup must be complete (its backfill done) for step 1 to subtract only what it counted:
// before that a purge answers 503 SML006. An event whose later copy (a batch stored again under
// another token) lands between the cut-off and the delete may reappear once; events still in a
// spool or buffer when the purge runs are stored after it and are not purged.
import { randomUUID } from 'node:crypto';
import { dependencyUnavailable } from '../../errors/domain-errors.ts';
import { clusterInsertSettingsSql, localTable } from '../clickhouse/cluster-layout.ts';
import { EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { purgeCountSql, purgeDeleteSql, purgeRollupSql, type PurgeSelection } from '../clickhouse/purge-sql.ts';
import type { QueryParams } from '../clickhouse/clickhouse-transport.ts';
import type { AnalyticsStore } from './analytics-store.ts';

export interface PurgeTarget {
  orgId: string;
  /** Half-open click-time range in µs; null: all time. */
  range: { fromMicros: bigint; toMicros: bigint } | null;
  /** Only this link's events; null: every link's. */
  shortCode: string | null;
}

const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function serverNowMicros(store: AnalyticsStore): Promise<bigint> {
  const [row] = await store.transport.queryRows<{ t: string }>('SELECT toString(toUnixTimestamp64Micro(now64(6))) AS t', {});
  return BigInt(row?.t ?? '0');
}

/** Events the purge removes (every type); with dryRun only counted. Returns the count. */
export async function purgeEvents(store: AnalyticsStore, target: PurgeTarget, o: { dryRun: boolean }): Promise<number> {
  if (!o.dryRun && !store.rollupReady) throw dependencyUnavailable(5);
  const cut = await serverNowMicros(store);
  for (;;) {
    const waitMs = Number((cut - (await serverNowMicros(store))) / 1000n) + store.syncSettleMillis;
    if (waitMs <= 0) break;
    await sleepMs(Math.min(waitMs, 250));
  }
  const selection: PurgeSelection = { range: target.range !== null, shortCode: target.shortCode !== null };
  const params: QueryParams = {
    orgId: target.orgId,
    cutMicros: cut.toString(),
    ...(target.range ? { fromMicros: target.range.fromMicros.toString(), toMicros: target.range.toMicros.toString() } : {}),
    ...(target.shortCode !== null ? { shortCode: target.shortCode } : {}),
  };

  const [row] = await store.transport.queryRows<{ n: string }>(purgeCountSql(selection), params);
  const events = Number(row?.n ?? 0);
  if (o.dryRun || events === 0) return events;

  const id = randomUUID();
  const cluster = store.cluster;
  const settings = (sign: string) =>
    `insert_deduplication_token = 'purge-${id}-${sign}', insert_deduplicate = 1${cluster ? clusterInsertSettingsSql(cluster) : ''}`;
  await store.transport.exec(purgeRollupSql(selection, 'subtract', settings('subtract')), params);
  try {
    await store.transport.exec(purgeDeleteSql(selection, cluster ? `${localTable(EVENTS_TABLE)} ON CLUSTER ${cluster.name}` : EVENTS_TABLE), params);
  } catch (err) {
    await store.transport.exec(purgeRollupSql(selection, 'add', settings('add')), params);
    throw err;
  }
  return events;
}
