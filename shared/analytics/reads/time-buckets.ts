// Invariant: the buckets of a time series are cut by the same rule as Browse's range: a local day
// is [first instant of the day, first instant of the next day) (dayStartMicros), so a day bucket
// holds exactly what Browse returns for from=to=that day, and a week or month bucket is a run of
// whole days. An hour bucket starts wherever the local wall clock reaches a whole hour or the
// UTC offset changes (a repeated hour after a DST fall-back is a second bucket with its own
// offset; a skipped hour has none). Each bucket's key is its first instant as local wall time
// with the offset in force then (`+00:00` for zero). Every boundary is a whole second; the
// store counts events per slot of `slotSeconds` (a divisor of 900 dividing every boundary), so
// a slot never straddles two buckets and the series is exact.
import { dayStartMicros, isValidTimeZone, localWallMs, parseCalendarDate } from './local-day-range.ts';
import type { AggregateInterval } from '../model/dimensions.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The rollup's grain: every UTC offset in use since 1972 is a multiple of 15 minutes. */
export const SLOT_SECONDS = 900;

export interface TimeBuckets {
  /** Bucket starts in seconds since the epoch, ascending; the last bucket ends at `endSeconds`. */
  startsSeconds: number[];
  keys: string[];
  /** Start of the range (local midnight of `from`); the first bucket may start before it (week, month). */
  fromSeconds: number;
  endSeconds: number;
  /** The largest divisor of 900 that divides every boundary and the range's ends. */
  slotSeconds: number;
}

/** UTC offset in milliseconds (whole seconds) at instant `ms`. */
export function offsetMsAt(timeZone: string, ms: number): number {
  return localWallMs(timeZone, ms) - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `2026-03-29T00:00:00+01:00`: the instant `ms` as wall time at offset `offsetMs`. */
export function localKey(ms: number, offsetMs: number): string {
  const w = new Date(ms + offsetMs);
  const sign = offsetMs < 0 ? '-' : '+';
  const abs = Math.abs(offsetMs) / 1000;
  const year = w.getUTCFullYear();
  return (
    `${year < 0 ? '-' : ''}${pad(Math.abs(year), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}` +
    `T${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}${abs % 60 ? `:${pad(abs % 60)}` : ''}`
  );
}

/** Day starts found so far (a bounded memo: each costs a search of about 17 zone lookups). */
const dayStarts = new Map<string, number>();
function dayStartMs(day: number, timeZone: string): number {
  const k = `${timeZone} ${day}`;
  let v = dayStarts.get(k);
  if (v === undefined) {
    v = Number(dayStartMicros(day, timeZone) / 1000n);
    if (dayStarts.size >= 100_000) dayStarts.clear();
    dayStarts.set(k, v);
  }
  return v;
}

function gcd(a: number, b: number): number {
  let [x, y] = [Math.abs(a), Math.abs(b)];
  while (y) [x, y] = [y, x % y];
  return x;
}

/** The instant in (a, b] where the offset becomes the one at b (one change between a and b). */
function transitionMs(timeZone: string, a: number, b: number): number {
  const ob = offsetMsAt(timeZone, b);
  let [lo, hi] = [Math.floor(a / 1000), Math.floor(b / 1000)];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMsAt(timeZone, mid * 1000) === ob) hi = mid;
    else lo = mid;
  }
  return hi * 1000;
}

/** Hour bucket starts in [a, b): the start, every whole local hour, and every change of offset. */
function hourStarts(timeZone: string, a: number, b: number, offsets: number[]): number[] {
  const out: number[] = [];
  let segStart = a;
  while (segStart < b) {
    const off = offsetMsAt(timeZone, segStart);
    // Probe hourly (and the last second) when the offset differs at the end of the day: offsets
    // change at most once a day, and never twice within an hour.
    let segEnd = b;
    let prev = segStart;
    const changes = offsetMsAt(timeZone, b - 1000) !== off;
    for (let p = Math.min(segStart + HOUR_MS, b - 1000); changes && p > prev; p = Math.min(p + HOUR_MS, b - 1000)) {
      if (offsetMsAt(timeZone, p) !== off) {
        segEnd = transitionMs(timeZone, prev, p);
        break;
      }
      prev = p;
    }
    out.push(segStart);
    offsets.push(off);
    for (let t = Math.floor((segStart + off) / HOUR_MS + 1) * HOUR_MS - off; t < segEnd; t += HOUR_MS) {
      out.push(t);
      offsets.push(off);
    }
    segStart = segEnd;
  }
  return out;
}

/** The buckets of calendar days [from, to] in `timeZone` at `interval` (both dates valid). */
export function timeBuckets(from: string, to: string, timeZone: string, interval: AggregateInterval): TimeBuckets {
  const a = parseCalendarDate(from);
  const b = parseCalendarDate(to);
  if (a === null || b === null) throw new Error(`invalid calendar date ${from} or ${to}`);
  if (!isValidTimeZone(timeZone)) throw new Error(`unknown time zone ${timeZone}`);
  const fromMs = dayStartMs(a, timeZone);
  const endMs = dayStartMs(b + 1, timeZone);
  let starts: number[];
  const offsets: number[] = [];
  if (interval === 'hour') {
    starts = [];
    for (let d = a; d <= b; d++) starts.push(...hourStarts(timeZone, dayStartMs(d, timeZone), dayStartMs(d + 1, timeZone), offsets));
  } else {
    // Days since the epoch of each bucket's first day (1970-01-01 was a Thursday).
    const firstDay = (d: number): number => {
      if (interval === 'day') return d;
      if (interval === 'week') return d - ((((d - 4) % 7) + 7) % 7);
      const dt = new Date(d * DAY_MS);
      return Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth(), 1) / DAY_MS;
    };
    const next = (d: number): number => {
      if (interval === 'day') return d + 1;
      if (interval === 'week') return d + 7;
      const dt = new Date(d * DAY_MS);
      return Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth() + 1, 1) / DAY_MS;
    };
    starts = [];
    for (let d = firstDay(a); d <= b; d = next(d)) starts.push(dayStartMs(d, timeZone));
    for (const s of starts) offsets.push(offsetMsAt(timeZone, s));
  }
  let slot = gcd(SLOT_SECONDS, fromMs / 1000);
  slot = gcd(slot, endMs / 1000);
  for (const s of starts) slot = gcd(slot, s / 1000);
  return {
    startsSeconds: starts.map((s) => s / 1000),
    keys: starts.map((s, i) => localKey(s, offsets[i] ?? 0)),
    fromSeconds: fromMs / 1000,
    endSeconds: endMs / 1000,
    slotSeconds: slot,
  };
}

/** Adds each slot's events to its bucket: `counts[i]` for the bucket starting at startsSeconds[i]. */
export function bucketSlots(buckets: TimeBuckets, slots: readonly { slot: number; events: number }[]): number[] {
  const counts = new Array<number>(buckets.startsSeconds.length).fill(0);
  const starts = buckets.startsSeconds;
  for (const { slot, events } of slots) {
    let lo = 0;
    let hi = starts.length - 1;
    if (slot < (starts[0] ?? 0) || slot >= buckets.endSeconds) throw new Error(`slot ${slot} outside the series`);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= slot) lo = mid;
      else hi = mid - 1;
    }
    counts[lo] = (counts[lo] ?? 0) + events;
  }
  return counts;
}
