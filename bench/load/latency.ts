// Invariant: latencies are recorded in whole microseconds into HDR histograms (hdr-histogram-js,
// 3 significant digits, 1 µs to 1 hour; longer values count as 1 hour) and reported in
// milliseconds, the unit named in every key (p99Ms). The recorder keeps, besides the whole run's
// histograms, one per interval of the run, summarised and reset when the interval closes, so its
// memory does not grow with the requests; the series grows by one entry per interval. No clock:
// the caller says when an interval closes.
import { Int32Histogram, type JsHistogram } from 'hdr-histogram-js';

export const MAX_TRACKABLE_US = 3_600_000_000;

export function newHistogram(): JsHistogram {
  return new Int32Histogram(1, MAX_TRACKABLE_US, 3);
}

/** Records `us` microseconds (rounded, at least 1, at most an hour). */
export function recordUs(h: JsHistogram, us: number): void {
  h.recordValue(Math.min(MAX_TRACKABLE_US, Math.max(1, Math.round(us))));
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  meanMs: number;
}

const ms = (us: number): number => Math.round(us) / 1000;

/** The percentiles of a histogram, in ms (all 0 when it is empty). */
export function summarize(h: JsHistogram): LatencySummary {
  if (h.totalCount === 0) return { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 };
  return {
    count: h.totalCount,
    p50Ms: ms(h.getValueAtPercentile(50)),
    p90Ms: ms(h.getValueAtPercentile(90)),
    p99Ms: ms(h.getValueAtPercentile(99)),
    p999Ms: ms(h.getValueAtPercentile(99.9)),
    maxMs: ms(h.maxValue),
    meanMs: Math.round(h.mean) / 1000,
  };
}

/** Every recorded value of a histogram (the highest value of its HDR bucket, µs) with its count. */
export function recordedValues(h: JsHistogram): [number, number][] {
  const out: [number, number][] = [];
  const it = h.recordedValuesIterator;
  it.reset();
  while (it.hasNext()) {
    const v = it.next();
    out.push([v.valueIteratedTo, v.countAtValueIteratedTo]);
  }
  return out;
}

export interface Buckets {
  /** Each bucket's lower bound, ms; bucket k holds latencies from fromMs[k] up to fromMs[k + 1]. */
  fromMs: number[];
  count: number[];
}

/**
 * Latency counts in logarithmic buckets (`perDecade` per factor of ten, on the grid 10^(k/perDecade)
 * µs), from the bucket of the lowest recorded value to that of the highest, empty buckets in
 * between kept so the chart's x axis is even.
 */
export function logBuckets(values: readonly (readonly [number, number])[], perDecade = 10): Buckets {
  const present = values.filter(([, c]) => c > 0);
  if (present.length === 0) return { fromMs: [], count: [] };
  const index = (us: number): number => Math.floor(Math.log10(Math.max(1, us)) * perDecade + 1e-9);
  const first = index(present[0]![0]);
  const last = index(present[present.length - 1]![0]);
  const count = new Array<number>(last - first + 1).fill(0);
  for (const [us, c] of present) count[index(us) - first]! += c;
  const fromMs = count.map((_, k) => Number((10 ** ((first + k) / perDecade) / 1000).toPrecision(3)));
  return { fromMs, count };
}

export interface Series {
  intervalMs: number;
  /** End of each interval, s from the start. */
  tS: number[];
  /** Answers received in the interval, per second. */
  rps: number[];
  /** Failed requests (errors of any kind) in the interval. */
  errors: number[];
  /** Latency from the schedule of the answers received in the interval; null without answers. */
  p50Ms: (number | null)[];
  p99Ms: (number | null)[];
  maxMs: (number | null)[];
}

export class LatencyRecorder {
  /** From each request's slot in the schedule. */
  readonly latency = newHistogram();
  /** From when each request was written (what a closed-loop tool reports). */
  readonly service = newHistogram();
  /** The generator's own lateness, where a connection stood idle at the request's slot. */
  readonly lateness = newHistogram();
  readonly series: Series;
  readonly #interval = newHistogram();
  #intervalErrors = 0;
  #lastCloseMs = 0;

  constructor(intervalMs: number) {
    this.series = { intervalMs, tS: [], rps: [], errors: [], p50Ms: [], p99Ms: [], maxMs: [] };
  }

  answer(latencyUs: number, serviceUs: number, lateUs: number): void {
    recordUs(this.latency, latencyUs);
    recordUs(this.#interval, latencyUs);
    recordUs(this.service, serviceUs);
    if (lateUs > 0) recordUs(this.lateness, lateUs);
  }

  error(): void {
    this.#intervalErrors++;
  }

  /** Closes the interval ending at `nowMs` (ms from the start) and appends its summary to the series. */
  closeInterval(nowMs: number): void {
    const h = this.#interval;
    const s = this.series;
    const seconds = Math.max(1e-3, (nowMs - this.#lastCloseMs) / 1000);
    s.tS.push(Math.round(nowMs) / 1000);
    s.rps.push(Math.round(h.totalCount / seconds));
    s.errors.push(this.#intervalErrors);
    const empty = h.totalCount === 0;
    s.p50Ms.push(empty ? null : ms(h.getValueAtPercentile(50)));
    s.p99Ms.push(empty ? null : ms(h.getValueAtPercentile(99)));
    s.maxMs.push(empty ? null : ms(h.maxValue));
    h.reset();
    this.#intervalErrors = 0;
    this.#lastCloseMs = nowMs;
  }
}

/** The interval of the series for a run of `durationMs`: 1 s, longer for runs over an hour (at most 3,600 points). */
export function seriesIntervalMs(durationMs: number): number {
  return Math.max(1000, Math.ceil(durationMs / 3_600_000) * 1000);
}
