// Invariant: calendar days map to the instants where they begin in the given zone, including
// days shortened or lengthened by a clock change and zones whose change skips midnight.
import { describe, expect, it } from 'vitest';
import { formatMicros } from '../../time/instant.ts';
import { inclusiveDayCount, localDayRangeMicros, parseCalendarDate } from './local-day-range.ts';

const range = (from: string, to: string, tz: string): [string, string] => {
  const r = localDayRangeMicros(from, to, tz);
  return [formatMicros(r.fromMicros), formatMicros(r.toMicros)];
};

describe('localDayRangeMicros', () => {
  it('UTC days are UTC midnights', () => {
    expect(range('2026-01-01', '2026-01-31', 'UTC')).toEqual(['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z']);
  });

  it('Berlin winter and summer offsets, and the short and long DST days', () => {
    expect(range('2026-01-15', '2026-01-15', 'Europe/Berlin')).toEqual(['2026-01-14T23:00:00Z', '2026-01-15T23:00:00Z']);
    expect(range('2026-07-15', '2026-07-15', 'Europe/Berlin')).toEqual(['2026-07-14T22:00:00Z', '2026-07-15T22:00:00Z']);
    expect(range('2026-03-29', '2026-03-29', 'Europe/Berlin')).toEqual(['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z']); // 23 h
    expect(range('2026-10-25', '2026-10-25', 'Europe/Berlin')).toEqual(['2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z']); // 25 h
  });

  it('a zone whose DST change skips midnight starts that day at 01:00', () => {
    // America/Santiago: 2026-09-06 00:00 → 01:00 (UTC-4 → UTC-3).
    expect(range('2026-09-06', '2026-09-06', 'America/Santiago')).toEqual(['2026-09-06T04:00:00Z', '2026-09-07T03:00:00Z']);
  });

  it('far offsets', () => {
    expect(range('2026-01-01', '2026-01-01', 'Pacific/Kiritimati')).toEqual(['2025-12-31T10:00:00Z', '2026-01-01T10:00:00Z']);
    expect(range('2026-01-01', '2026-01-01', 'Asia/Kolkata')).toEqual(['2025-12-31T18:30:00Z', '2026-01-01T18:30:00Z']);
  });

  it('refuses unknown zones and bad dates', () => {
    expect(() => localDayRangeMicros('2026-01-01', '2026-01-01', 'Mars/Olympus')).toThrow();
    expect(() => localDayRangeMicros('2026-02-30', '2026-03-01', 'UTC')).toThrow();
  });
});

describe('calendar dates', () => {
  it('counts inclusive days and validates dates', () => {
    expect(inclusiveDayCount('2026-01-01', '2026-01-31')).toBe(31);
    expect(inclusiveDayCount('2024-02-28', '2024-03-01')).toBe(3);
    expect(parseCalendarDate('2025-02-29')).toBeNull();
    expect(parseCalendarDate('2026-1-01')).toBeNull();
  });
});
