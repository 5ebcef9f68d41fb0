// Invariant: the process that runs the analytics pipeline (the ingest worker, or `npm start`)
// sweeps retention once the rollup's backfill is done after start, then every SWEEP_INTERVAL_MS,
// one sweep at a time, each with the policy read afresh (an organisation's change applies at the
// next sweep). A failed sweep is logged and tried again at the next interval; stop() waits for a
// sweep under way, never for the backfill before the first. Several workers may sweep at once: a sweep removes nothing twice.
import type { Sql } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { organisationRetentions } from '../../orgs/org-repository.ts';
import type { AnalyticsStore } from './analytics-store.ts';
import { sweepRetention, type RetentionPolicy, type SweepReport } from './retention-sweep.ts';

export const SWEEP_INTERVAL_MS = 3_600_000;

export interface RetentionSettings {
  ANALYTICS_RETENTION_DAYS: number | null;
  ANALYTICS_ROLLUP_RETENTION_DAYS: number | null;
}

/** The policy now: the service's settings and every organisation's own retention. */
export async function retentionPolicy(sql: Sql, settings: RetentionSettings): Promise<RetentionPolicy> {
  return { eventsDays: settings.ANALYTICS_RETENTION_DAYS, orgDays: await organisationRetentions(sql), rollupDays: settings.ANALYTICS_ROLLUP_RETENTION_DAYS };
}

/** Sweeps with the policy read now. */
export async function sweepNow(sql: Sql, store: AnalyticsStore, settings: RetentionSettings): Promise<SweepReport> {
  return sweepRetention(store, await retentionPolicy(sql, settings));
}

export interface RetentionSchedule {
  /** Sweeps done since start. */
  readonly sweeps: number;
  stop(): Promise<void>;
}

export function startRetentionSchedule(sql: Sql, store: AnalyticsStore, settings: RetentionSettings, logger: Logger): RetentionSchedule {
  const log = logger.child({ role: 'retention' });
  let stopped = false;
  /** The sweep under way, if any: stop() waits for it, never for the backfill before the first. */
  let sweeping: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const state = { sweeps: 0 };
  const sweep = async (): Promise<void> => {
    if (stopped) return;
    try {
      const report = await sweepNow(sql, store, settings);
      state.sweeps++;
      if (report.skipped !== null) log.warn({ report }, 'retention sweep skipped');
      else if (report.events.removed > 0 || report.rollup.removed > 0) log.info({ report }, 'retention sweep removed expired analytics');
    } catch (err) {
      log.warn({ err }, 'retention sweep failed; trying again at the next interval');
    }
  };
  const run = (): void => {
    if (stopped) return;
    sweeping = sweep().then(() => {
      if (stopped) return;
      timer = setTimeout(run, SWEEP_INTERVAL_MS);
      timer.unref();
    });
  };
  void store.rollupBackfill.then(run);
  return {
    get sweeps() {
      return state.sweeps;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await sweeping;
    },
  };
}
