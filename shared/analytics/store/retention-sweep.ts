// Invariant: a retention sweep removes the raw events whose click time is older than their
// organisation's retention (its own days, else ANALYTICS_RETENTION_DAYS, else kept for good) and
// the rollup slots older than ANALYTICS_ROLLUP_RETENTION_DAYS, and nothing else. Named steps:
//   1. plan: one cut-off per organisation from the policy and the clock (pure, planSweep);
//   2. count what is past its cut-off (FINAL: events, not stored copies), so the report says
//      what went;
//   3. drop whole monthly partitions that end at or before every organisation's cut-off;
//   4. delete what is left past its cut-off (one lightweight delete for every organisation);
//   5. the same for the rollup, by slot.
// The rollup is never adjusted for swept events: aggregates keep counting them. So the sweep
// waits for the rollup's backfill (which counts from raw events) to be done; before that it
// removes nothing and says why. Running it twice, or on several workers at once, removes nothing
// twice: every step selects by cut-off alone.
import { localTable } from '../clickhouse/cluster-layout.ts';
import { EVENTS_TABLE } from '../clickhouse/events-table.ts';
import {
  dropPartitionSql,
  EXPIRED_EVENTS_COUNT_SQL,
  EXPIRED_ROLLUP_ROWS_SQL,
  expiredEventsDeleteSql,
  expiredRollupDeleteSql,
  isMonthPartition,
  monthPartitionEndMicros,
} from '../clickhouse/retention-sql.ts';
import { ROLLUP_TABLE } from '../clickhouse/rollup-table.ts';
import type { AnalyticsStore } from './analytics-store.ts';

const DAY_MICROS = 86_400_000_000n;

export interface RetentionPolicy {
  /** ANALYTICS_RETENTION_DAYS: null keeps raw events for good. */
  eventsDays: number | null;
  /** Organisations with their own retention (days), whatever the service's. */
  orgDays: ReadonlyMap<string, number>;
  /** ANALYTICS_ROLLUP_RETENTION_DAYS: null keeps the rollup for good. */
  rollupDays: number | null;
}

export interface SweepPlan {
  /** The cut-off of organisations without their own retention (µs); null: kept for good. */
  defaultCutMicros: bigint | null;
  /** Organisations with their own cut-off. */
  orgCuts: readonly (readonly [orgId: string, cutMicros: bigint])[];
  /** Every organisation's events before this are past their cut-off: partitions ending by then go whole. Null when some keep events for good. */
  dropBeforeMicros: bigint | null;
  /** No event at or after this is past its cut-off; null: nothing to sweep. */
  maxCutMicros: bigint | null;
  rollupCutMicros: bigint | null;
}

/** The sweep's cut-offs at `nowMicros`: `days` before it, to the microsecond. */
export function planSweep(policy: RetentionPolicy, nowMicros: bigint): SweepPlan {
  const cut = (days: number): bigint => nowMicros - BigInt(days) * DAY_MICROS;
  const defaultCutMicros = policy.eventsDays === null ? null : cut(policy.eventsDays);
  const orgCuts = [...policy.orgDays].map(([orgId, days]) => [orgId, cut(days)] as const);
  const cuts = [...(defaultCutMicros === null ? [] : [defaultCutMicros]), ...orgCuts.map(([, c]) => c)];
  const min = (xs: bigint[]) => xs.reduce((a, b) => (b < a ? b : a));
  const max = (xs: bigint[]) => xs.reduce((a, b) => (b > a ? b : a));
  return {
    defaultCutMicros,
    orgCuts,
    dropBeforeMicros: defaultCutMicros === null ? null : min(cuts),
    maxCutMicros: cuts.length === 0 ? null : max(cuts),
    rollupCutMicros: policy.rollupDays === null ? null : cut(policy.rollupDays),
  };
}

export interface SweepReport {
  /** When the cut-offs were taken (ISO). */
  sweptAt: string;
  /** Why nothing was removed, when the sweep could not run; null when it ran. */
  skipped: string | null;
  events: {
    /** Raw events removed (duplicates collapsed, every type). */
    removed: number;
    /** Monthly partitions dropped whole (YYYYMM). */
    partitionsDropped: string[];
    /** The service's cut-off (ISO); null keeps events for good. */
    cutoff: string | null;
    /** Organisations swept by their own retention. */
    organisationsWithOwnRetention: number;
  };
  rollup: { removed: number; partitionsDropped: string[]; cutoff: string | null };
  durationMs: number;
}

const iso = (micros: bigint | null): string | null => (micros === null ? null : new Date(Number(micros / 1000n)).toISOString());

/** Runs the sweep (see the steps above) at `nowMs`. */
export async function sweepRetention(store: AnalyticsStore, policy: RetentionPolicy, nowMs: number = Date.now()): Promise<SweepReport> {
  const started = performance.now();
  const plan = planSweep(policy, BigInt(Math.floor(nowMs)) * 1000n);
  const report: SweepReport = {
    sweptAt: new Date(nowMs).toISOString(),
    skipped: null,
    events: { removed: 0, partitionsDropped: [], cutoff: iso(plan.defaultCutMicros), organisationsWithOwnRetention: plan.orgCuts.length },
    rollup: { removed: 0, partitionsDropped: [], cutoff: iso(plan.rollupCutMicros) },
    durationMs: 0,
  };
  if (plan.maxCutMicros === null && plan.rollupCutMicros === null) return done(report, started);
  if (!store.rollupReady) {
    report.skipped = "the rollup's backfill has not finished: events swept now would be missing from aggregates";
    return done(report, started);
  }
  const cluster = store.cluster;
  const target = (table: string): string => (cluster ? `${localTable(table)} ON CLUSTER ${cluster.name}` : table);
  const count = async (sql: string, params: Record<string, string>): Promise<number> => {
    const [row] = await store.transport.queryRows<{ n: string }>(sql, params);
    return Number(row?.n ?? 0);
  };
  const wholeBefore = async (table: string, beforeMicros: bigint): Promise<string[]> =>
    (await store.partitions(table)).filter((p) => isMonthPartition(p) && monthPartitionEndMicros(p) <= beforeMicros);

  if (plan.maxCutMicros !== null) {
    const params = {
      ids: `[${plan.orgCuts.map(([id]) => `'${id.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(',')}]`,
      cuts: `[${plan.orgCuts.map(([, c]) => c.toString()).join(',')}]`,
      defaultCut: (plan.defaultCutMicros ?? 0n).toString(),
      maxCut: plan.maxCutMicros.toString(),
    };
    report.events.removed = await count(EXPIRED_EVENTS_COUNT_SQL, params);
    if (report.events.removed > 0) {
      if (plan.dropBeforeMicros !== null) {
        for (const p of await wholeBefore(EVENTS_TABLE, plan.dropBeforeMicros)) {
          await store.transport.exec(dropPartitionSql(target(EVENTS_TABLE), p), {});
          report.events.partitionsDropped.push(p);
        }
      }
      await store.transport.exec(expiredEventsDeleteSql(target(EVENTS_TABLE)), params);
    }
  }

  if (plan.rollupCutMicros !== null) {
    const params = { cut: plan.rollupCutMicros.toString() };
    report.rollup.removed = await count(EXPIRED_ROLLUP_ROWS_SQL, params);
    if (report.rollup.removed > 0) {
      for (const p of await wholeBefore(ROLLUP_TABLE, plan.rollupCutMicros)) {
        await store.transport.exec(dropPartitionSql(target(ROLLUP_TABLE), p), {});
        report.rollup.partitionsDropped.push(p);
      }
      await store.transport.exec(expiredRollupDeleteSql(target(ROLLUP_TABLE)), params);
    }
  }
  return done(report, started);
}

function done(report: SweepReport, started: number): SweepReport {
  report.durationMs = Math.round(performance.now() - started);
  return report;
}
