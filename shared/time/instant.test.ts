import { describe, expect, it } from 'vitest';
import { formatMicros, formatPgInstant, parseInstantMicros } from './instant.ts';

describe('instants', () => {
  it.each([
    ['2026-01-02 03:04:05+00', '2026-01-02T03:04:05Z'],
    ['2026-01-02 03:04:05.1+00', '2026-01-02T03:04:05.100Z'],
    ['2026-01-02 03:04:05.123+00', '2026-01-02T03:04:05.123Z'],
    ['2026-01-02 03:04:05.12345+00', '2026-01-02T03:04:05.123450Z'],
    ['2026-01-02 03:04:05.123456+00', '2026-01-02T03:04:05.123456Z'],
    ['2026-01-02 03:04:05.000001+00', '2026-01-02T03:04:05.000001Z'],
  ])('formats Postgres %s like Instant.toString: %s', (pg, iso) => {
    expect(formatPgInstant(pg)).toBe(iso);
  });

  it('formats microseconds since the epoch', () => {
    expect(formatMicros(1_767_323_045_123_456n)).toBe('2026-01-02T03:04:05.123456Z');
    expect(formatMicros(1_767_323_045_000_000n)).toBe('2026-01-02T03:04:05Z');
  });

  it('parses Z, offsets and zone-less (UTC) forms, keeping microseconds', () => {
    const z = parseInstantMicros('2026-01-02T03:04:05.123456Z');
    expect(z).toBe(1_767_323_045_123_456n);
    expect(parseInstantMicros('2026-01-02T03:04:05.123456')).toBe(z);
    expect(parseInstantMicros('2026-01-02T05:04:05.123456+02:00')).toBe(z);
    expect(parseInstantMicros('2026-01-01T22:04:05.123456-05:00')).toBe(z);
  });

  it.each(['2026-02-30T00:00:00Z', '2026-01-02', 'yesterday', '2026-01-02T25:00:00Z', '2026-01-02T03:04:05.1234567890Z'])('rejects %s', (text) => {
    expect(parseInstantMicros(text)).toBeNull();
  });
});
