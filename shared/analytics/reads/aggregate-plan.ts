// Invariant: how an aggregates request is read, decided by a pure function of the request, the
// organisation's time zone and whether the rollup is ready: the range in UTC microseconds, the
// local buckets of a series, which table answers (the rollup when the range is on its 15-minute
// grid, the buckets are whole slots, at most one dimension is filtered for a series and none for a
// top list, every dimension involved is one the rollup counts and events are counted; raw events
// otherwise, distinct visitors always), the whole UTC days and hours a rollup top list reads by day
// and by hour, and the comparison period (the same number of days just before).
// The store executes the plan and nothing else decides these.
import { DIMENSION_NAMES, type Dimension, type AggregateInterval, ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import type { RollupTopPieces } from '../clickhouse/clickhouse-sql.ts';
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
  /**
   * The range's whole UTC days and whole UTC hours (wholeUtcUnits): a rollup top list reads the
   * days by day, the rest of the hours by hour, and the rest of the range by 15-minute slot.
   */
  days: SecondsRange;
  hours: SecondsRange;
  /** Which of those pieces hold any time: the days, the hours outside them, the rest outside the hours. */
  pieces: RollupTopPieces;
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

type SecondsRange = { fromSeconds: number; toSeconds: number };
const HOUR_MICROS = 3_600_000_000n;
const DAY_MICROS = 24n * HOUR_MICROS;
const floorTo = (micros: bigint, unit: bigint): bigint => micros - (((micros % unit) + unit) % unit);

/**
 * The whole UTC units (hours or days) that lie inside [fromMicros, toMicros), as seconds; an empty
 * range at `fromMicros` when there is none (a local day of a zone other than UTC spans two UTC days).
 */
export function wholeUtcUnits(fromMicros: bigint, toMicros: bigint, unit: 'hour' | 'day'): SecondsRange {
  const size = unit === 'hour' ? HOUR_MICROS : DAY_MICROS;
  const first = floorTo(fromMicros, size) === fromMicros ? fromMicros : floorTo(fromMicros, size) + size;
  const end = floorTo(toMicros, size);
  const [a, b] = first < end ? [first, end] : [fromMicros, fromMicros];
  return { fromSeconds: Number(a / 1_000_000n), toSeconds: Number(b / 1_000_000n) };
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
  // The days are taken inside the hours, so that without a whole day their empty range still lies
  // inside the hours and the pieces read by hour and by slot stay disjoint.
  const hours = wholeUtcUnits(fromMicros, toMicros, 'hour');
  const days = wholeUtcUnits(BigInt(hours.fromSeconds) * 1_000_000n, BigInt(hours.toSeconds) * 1_000_000n, 'day');
  // Distinct visitors are counted from raw events: the rollup holds counts, not visitor sets.
  const rollup =
    rollupReady &&
    req.metric === 'events' &&
    onGrid &&
    (series || counted(req.groupBy as Dimension)) &&
    filtered.every(counted) &&
    (buckets === null ? filtered.length === 0 : filtered.length <= 1 && buckets.slotSeconds === ROLLUP_SLOT_SECONDS);
  return {
    source: rollup ? 'rollup' : 'raw',
    fromMicros,
    toMicros,
    interval,
    buckets,
    filtered,
    days,
    hours,
    pieces: {
      days: days.fromSeconds < days.toSeconds,
      hours: hours.fromSeconds < days.fromSeconds || days.toSeconds < hours.toSeconds,
      slots: fromMicros < BigInt(hours.fromSeconds) * 1_000_000n || BigInt(hours.toSeconds) * 1_000_000n < toMicros,
    },
    previous: previousPeriod(req.from, req.to),
  };
}
