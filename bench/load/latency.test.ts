import { describe, expect, it } from 'vitest';
import { LatencyRecorder, logBuckets, newHistogram, recordedValues, recordUs, seriesIntervalMs, summarize } from './latency.ts';

describe('latency histograms', () => {
  it('summarises percentiles in ms within the histogram precision (3 significant digits)', () => {
    const h = newHistogram();
    for (let us = 1; us <= 10_000; us++) recordUs(h, us); // 1 µs … 10 ms, evenly
    const s = summarize(h);
    expect(s.count).toBe(10_000);
    expect(s.p50Ms).toBeCloseTo(5, 1);
    expect(s.p90Ms).toBeCloseTo(9, 1);
    expect(s.p99Ms).toBeCloseTo(9.9, 1);
    expect(s.p999Ms).toBeCloseTo(9.99, 1);
    expect(s.maxMs).toBeCloseTo(10, 1);
    expect(s.meanMs).toBeCloseTo(5, 1);
    expect(summarize(newHistogram())).toEqual({ count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 });
  });

  it('clamps values outside 1 µs … 1 h instead of throwing', () => {
    const h = newHistogram();
    recordUs(h, 0);
    recordUs(h, 5e12);
    expect(h.totalCount).toBe(2);
    expect(summarize(h).maxMs).toBeGreaterThan(3_590_000);
  });

  it('puts every recorded value into its logarithmic bucket, counts kept', () => {
    const h = newHistogram();
    for (let i = 0; i < 90; i++) recordUs(h, 500); // 0.5 ms
    for (let i = 0; i < 9; i++) recordUs(h, 20_000); // 20 ms
    recordUs(h, 1_500_000); // 1.5 s
    const b = logBuckets(recordedValues(h));
    expect(b.count.reduce((a, c) => a + c, 0)).toBe(100);
    expect(b.fromMs[0]).toBeLessThanOrEqual(0.5);
    expect(b.fromMs[1]).toBeGreaterThan(0.5);
    expect(b.count[0]).toBe(90);
    const at = (ms: number): number => b.fromMs.filter((f) => f <= ms).length - 1;
    expect(b.count[at(20)]).toBe(9);
    expect(b.count[at(1500)]).toBe(1);
    expect(b.count.length).toBe(at(1500) + 1);
    // 10 a decade: 0.5 ms to 1.5 s is 3.5 decades
    expect(b.count.length).toBeGreaterThanOrEqual(35);
    expect(b.count.length).toBeLessThanOrEqual(36);
    expect(logBuckets([])).toEqual({ fromMs: [], count: [] });
  });

  it('closes intervals into the series and resets them', () => {
    const rec = new LatencyRecorder(1000);
    for (let i = 0; i < 100; i++) rec.answer(1000, 900, 0);
    rec.error();
    rec.closeInterval(1000);
    rec.answer(250_000, 1000, 300);
    rec.closeInterval(2000);
    rec.closeInterval(2500);
    const s = rec.series;
    expect(s.tS).toEqual([1, 2, 2.5]);
    expect(s.rps).toEqual([100, 1, 0]);
    expect(s.errors).toEqual([1, 0, 0]);
    expect(s.p99Ms[0]).toBe(1);
    expect(s.p99Ms[1]).toBeCloseTo(250, 0);
    expect(s.p99Ms[2]).toBeNull();
    expect(s.maxMs[1]).toBeCloseTo(250, 0);
    expect(summarize(rec.latency).count).toBe(101);
    expect(summarize(rec.lateness).count).toBe(1);
  });

  it('keeps the series to at most 3,600 points', () => {
    expect(seriesIntervalMs(30_000)).toBe(1000);
    expect(seriesIntervalMs(3_600_000)).toBe(1000);
    expect(seriesIntervalMs(24 * 3_600_000)).toBe(24_000);
  });
});
