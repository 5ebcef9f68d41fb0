// Invariant: bucket boundaries without storage: local keys with offsets, DST-skipped and repeated
// hours, half-hour DST shifts, and a slot that divides every boundary (also off the 15-minute grid).
import { describe, expect, it } from 'vitest';
import { bucketSlots, localKey, timeBuckets } from './time-buckets.ts';

describe('timeBuckets', () => {
  it('prints local starts with their offset, +00:00 for zero', () => {
    expect(localKey(Date.UTC(2026, 2, 28, 23), 3_600_000)).toBe('2026-03-29T00:00:00+01:00');
    expect(localKey(Date.UTC(2026, 0, 1), 0)).toBe('2026-01-01T00:00:00+00:00');
    expect(localKey(Date.UTC(2026, 0, 1, 5), -5 * 3_600_000)).toBe('2026-01-01T00:00:00-05:00');
  });

  it('a 30-minute DST shift starts a bucket at the change (Australia/Lord_Howe)', () => {
    const b = timeBuckets('2026-04-05', '2026-04-05', 'Australia/Lord_Howe', 'hour');
    expect(b.keys.slice(0, 4)).toEqual(['2026-04-05T00:00:00+11:00', '2026-04-05T01:00:00+11:00', '2026-04-05T01:30:00+10:30', '2026-04-05T02:00:00+10:30']);
    expect(b.slotSeconds).toBe(900);
  });

  it('a boundary off the quarter-hour grid shrinks the slot so that none straddles two buckets', () => {
    // Africa/Monrovia kept −0:44:30 until 1972: local midnight is at 00:44:30 UTC.
    const b = timeBuckets('1971-03-01', '1971-03-03', 'Africa/Monrovia', 'day');
    expect(b.keys[0]).toBe('1971-03-01T00:00:00-00:44:30');
    expect(b.slotSeconds).toBe(30); // gcd(900 s, 2670 s)
    for (const s of [...b.startsSeconds, b.endSeconds]) expect(s % b.slotSeconds).toBe(0);
  });

  it('adds slots into their buckets and refuses a slot outside the series', () => {
    const b = timeBuckets('2026-02-09', '2026-02-10', 'UTC', 'day');
    const day = 86_400;
    const t0 = b.startsSeconds[0] ?? 0;
    expect(
      bucketSlots(b, [
        { slot: t0, events: 2 },
        { slot: t0 + day - 900, events: 3 },
        { slot: t0 + day, events: 4 },
      ]),
    ).toEqual([5, 4]);
    expect(() => bucketSlots(b, [{ slot: t0 + 2 * day, events: 1 }])).toThrow();
  });
});
