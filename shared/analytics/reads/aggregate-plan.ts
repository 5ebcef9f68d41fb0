// Invariant: how an aggregates request is read, decided by a pure function of the request, the
// organisation's time zone and whether the rollup is ready: the range in UTC microseconds, the
// local buckets of a series, which table answers (the rollup when the range is on its 15-minute
// grid, the buckets are whole slots, at most one dimension is filtered for a series and none for a
// top list, every dimension involved is one the rollup counts and events are counted; raw events
// otherwise, distinct visitors always) and the comparison period (the same number of days just before).
// The store executes the plan and nothing else decides these.
import { DIMENSION_NAMES, type Dimension, type AggregateInterval, ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import { ROLLUP_SLOT_SECONDS } from '../clickhouse/rollup-table.ts';
import type { AggregatesRequest } from './analytics-params.ts';
import { localDayRangeMicros, parseCalendarDate } from './local-day-range.ts';
import { timeBuckets, type TimeBuckets } from './time-buckets.ts';

export type AggregateSource = 'rollup' | 'raw';

export interface AggregatePlan {
  source: AggregateSource;
  /** The range: local midnight of `from` to local midnight after `to`, as UTC microseconds. */
  fromMicros: bigint;
  toMicros: bigint;
  /** A series' bucket size and buckets; null for a top list. */
  interval: AggregateInterval | null;
  buckets: TimeBuckets | null;
  /** The filtered dimensions, in registry order (a rollup series reads the first, if any). */
  filtered: Dimension[];
  /** The comparison period: as many days as the range, ending the day before `from`. */
  previous: { from: string; to: string };
}

const DAY_MS = 86_400_000;
const dayText = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The range of the same length that ends the day before `from` (both valid dates). */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const a = parseCalendarDate(from) ?? 0;
  const b = parseCalendarDate(to) ?? 0;
  return { from: dayText(a - (b - a + 1)), to: dayText(a - 1) };
}

export function planAggregate(req: AggregatesRequest, timeZone: string, rollupReady: boolean): AggregatePlan {
  const { fromMicros, toMicros } = localDayRangeMicros(req.from, req.to, timeZone);
  const filtered = DIMENSION_NAMES.filter((d) => req.filters[d] !== null);
  const slot = BigInt(ROLLUP_SLOT_SECONDS * 1_000_000);
  const onGrid = fromMicros % slot === 0n && toMicros % slot === 0n;
  const series = req.groupBy === 'time';
  const interval = series ? (req.interval ?? 'day') : null;
  const buckets = interval === null ? null : timeBuckets(req.from, req.to, timeZone, interval);
  // The rollup counts every event and people's apart (so any bots filter reads it), but not the
  // dimensions marked rollup: false.
  const counted = (d: Dimension): boolean => ROLLUP_DIMENSIONS.includes(d);
  // Distinct visitors are counted from raw events: the rollup holds counts, not visitor sets.
  const rollup =
    rollupReady &&
    req.metric === 'events' &&
    onGrid &&
    (series || counted(req.groupBy as Dimension)) &&
    filtered.every(counted) &&
    (buckets === null ? filtered.length === 0 : filtered.length <= 1 && buckets.slotSeconds === ROLLUP_SLOT_SECONDS);
  return { source: rollup ? 'rollup' : 'raw', fromMicros, toMicros, interval, buckets, filtered, previous: previousPeriod(req.from, req.to) };
}
