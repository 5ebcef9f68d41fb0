// Invariant: TEST-ONLY. The aggregates of an organisation around now (the day before to the day
// after, in UTC) as counts: the time series' total and sum, a dimension's total, and the events
// Browse returns for the same range, so write-path suites can show all four agree.
import type { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { parseAggregatesQuery, parseEventsQuery } from '../../shared/analytics/reads/analytics-params.ts';
import { AppError } from '../../shared/errors/app-error.ts';

export interface AggregateCounts {
  seriesTotal: number;
  seriesSum: number;
  topTotal: number;
  browsed: number;
}

export async function aggregateCounts(store: AnalyticsStore, orgId: string): Promise<AggregateCounts> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const range = { from: day(-1), to: day(1) };
  const req = (q: Record<string, string>) => {
    const r = parseAggregatesQuery(q);
    if (r instanceof AppError) throw r;
    return r;
  };
  const series = await store.aggregate(orgId, 'UTC', req({ ...range, groupBy: 'time', interval: 'hour' }));
  const top = await store.aggregate(orgId, 'UTC', req({ ...range, groupBy: 'countryCode' }));
  let browsed = 0;
  let q: Record<string, string> = { ...range, limit: '5000', eventType: 'CLICK' };
  for (;;) {
    const b = parseEventsQuery(q);
    if (b instanceof AppError || b.mode !== 'browse') throw new Error('not a browse request');
    const page = await store.browse(orgId, 'UTC', b);
    browsed += page.data.length;
    if (!page.hasMore) break;
    q = { ...q, cursor: page.nextCursor ?? '' };
  }
  return { seriesTotal: series.total, seriesSum: series.data.reduce((n, x) => n + x.events, 0), topTotal: top.total, browsed };
}

/** The counts when all four equal `n`. */
export const allEqual = (n: number): AggregateCounts => ({ seriesTotal: n, seriesSum: n, topTotal: n, browsed: n });
