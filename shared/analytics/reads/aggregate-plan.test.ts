// Invariant: planAggregate alone decides the table (rollup or raw events), the range, the series'
// buckets and the comparison period, without storage: a table of requests and their plans.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import { type AggregatePlan, planAggregate, previousPeriod, wholeUtcUnits } from './aggregate-plan.ts';
import { type AggregatesRequest, parseAggregatesQuery } from './analytics-params.ts';

function req(q: Record<string, string>): AggregatesRequest {
  const r = parseAggregatesQuery(q);
  if (r instanceof AppError) throw r;
  return r;
}

const plan = (q: Record<string, string>, timeZone = 'UTC', rollupReady = true): AggregatePlan => planAggregate(req(q), timeZone, rollupReady);
const APRIL = { from: '2026-04-01', to: '2026-04-30' };

describe('planAggregate: which table answers', () => {
  const cases: [string, Record<string, string>, string, boolean, 'rollup' | 'raw'][] = [
    ['a daily series', { ...APRIL, groupBy: 'time', interval: 'day' }, 'UTC', true, 'rollup'],
    ['an hourly series in a +05:45 zone (on the 15-minute grid)', { ...APRIL, groupBy: 'time', interval: 'hour' }, 'Asia/Kathmandu', true, 'rollup'],
    ['a weekly series with one dimension filtered', { ...APRIL, groupBy: 'time', interval: 'week', countryCode: 'np' }, 'UTC', true, 'rollup'],
    [
      'a series with shortCode and eventType (eventType is keyed)',
      { ...APRIL, groupBy: 'time', shortCode: 'abc', eventType: 'METADATA_PREVIEW' },
      'UTC',
      true,
      'rollup',
    ],
    ['a series with two dimensions filtered', { ...APRIL, groupBy: 'time', countryCode: 'DE', deviceType: 'MOBILE' }, 'UTC', true, 'raw'],
    ['a top list without filters', { ...APRIL, groupBy: 'browserName' }, 'UTC', true, 'rollup'],
    ['a top list with a filter', { ...APRIL, groupBy: 'browserName', osName: 'iOS' }, 'UTC', true, 'raw'],
    ['a series of people only (bots=exclude)', { ...APRIL, groupBy: 'time', bots: 'exclude' }, 'UTC', true, 'rollup'],
    ['a top list of bots only', { ...APRIL, groupBy: 'shortCode', bots: 'only' }, 'UTC', true, 'rollup'],
    ['a series with bots=include (every event, as without)', { ...APRIL, groupBy: 'time', bots: 'include' }, 'UTC', true, 'rollup'],
    ['distinct visitors (a series)', { ...APRIL, groupBy: 'time', metric: 'visitors' }, 'UTC', true, 'raw'],
    ['distinct visitors (a top list)', { ...APRIL, groupBy: 'shortCode', metric: 'visitors' }, 'UTC', true, 'raw'],
    ['a top list of bot categories (not counted by the rollup)', { ...APRIL, groupBy: 'botCategory' }, 'UTC', true, 'raw'],
    ['a series of one bot category', { ...APRIL, groupBy: 'time', botCategory: 'mail_scanner' }, 'UTC', true, 'raw'],
    ['a range before the rollup is ready', { ...APRIL, groupBy: 'time' }, 'UTC', false, 'raw'],
    ['a top list before the rollup is ready', { ...APRIL, groupBy: 'countryCode' }, 'UTC', false, 'raw'],
    // Africa/Monrovia kept −0:44:30 until 1972: its midnights are off the 15-minute grid.
    ['a range whose local midnights are off the grid', { from: '1971-03-01', to: '1971-03-02', groupBy: 'time' }, 'Africa/Monrovia', true, 'raw'],
    ['a top list off the grid', { from: '1971-03-01', to: '1971-03-02', groupBy: 'osName' }, 'Africa/Monrovia', true, 'raw'],
  ];
  for (const [name, q, zone, ready, source] of cases) {
    it(`${name}: ${source}`, () => expect(plan(q, zone, ready).source).toBe(source));
  }
});

describe('planAggregate: range, buckets and comparison period', () => {
  it('a series: the local range in UTC microseconds, its buckets, the filtered dimensions', () => {
    const p = plan({ from: '2026-03-29', to: '2026-03-29', groupBy: 'time', countryCode: 'de' }, 'Europe/Berlin');
    expect(p.fromMicros).toBe(BigInt(Date.UTC(2026, 2, 28, 23)) * 1000n);
    expect(p.toMicros).toBe(BigInt(Date.UTC(2026, 2, 29, 22)) * 1000n);
    expect(p.interval).toBe('hour');
    expect(p.buckets?.keys).toHaveLength(23);
    expect(p.filtered).toEqual(['countryCode']);
    expect(p.previous).toEqual({ from: '2026-03-28', to: '2026-03-28' });
  });

  it('a top list has no buckets', () => {
    const p = plan({ ...APRIL, groupBy: 'utmSource' });
    expect({ interval: p.interval, buckets: p.buckets, filtered: p.filtered }).toEqual({ interval: null, buckets: null, filtered: [] });
  });

  it('the whole UTC days and hours inside the range, read by day and by hour for a rollup top list', () => {
    const s = (iso: string): number => Date.parse(iso) / 1000;
    // April in Berlin: 31 March 22:00 UTC to 30 April 22:00 UTC holds 1–29 April whole.
    expect(plan({ ...APRIL, groupBy: 'shortCode' }, 'Europe/Berlin').days).toEqual({ fromSeconds: s('2026-04-01T00:00Z'), toSeconds: s('2026-04-30T00:00Z') });
    expect(plan({ ...APRIL, groupBy: 'shortCode' }).days).toEqual({ fromSeconds: s('2026-04-01T00:00Z'), toSeconds: s('2026-05-01T00:00Z') });
    // West of UTC: 1 April in New York starts 04:00 UTC.
    expect(plan({ from: '2026-04-01', to: '2026-04-03', groupBy: 'shortCode' }, 'America/New_York').days).toEqual({
      fromSeconds: s('2026-04-02T00:00Z'),
      toSeconds: s('2026-04-04T00:00Z'),
    });
    // One Berlin day spans two UTC days and holds neither whole: an empty range, all read by slot.
    const one = plan({ from: '2026-04-10', to: '2026-04-10', groupBy: 'shortCode' }, 'Europe/Berlin');
    expect(one.days).toEqual({ fromSeconds: s('2026-04-09T22:00Z'), toSeconds: s('2026-04-09T22:00Z') });
    expect(one.hours).toEqual({ fromSeconds: s('2026-04-09T22:00Z'), toSeconds: s('2026-04-10T22:00Z') });
    expect(one.pieces).toEqual({ days: false, hours: true, slots: false });
    expect(plan({ ...APRIL, groupBy: 'shortCode' }).pieces).toEqual({ days: true, hours: false, slots: false });
    expect(plan({ ...APRIL, groupBy: 'shortCode' }, 'Europe/Berlin').pieces).toEqual({ days: true, hours: true, slots: false });
    // +05:45: the hours start 15 minutes after local midnight and end 45 minutes before the next.
    const nepal = plan({ from: '2026-04-10', to: '2026-04-10', groupBy: 'shortCode' }, 'Asia/Kathmandu');
    expect(nepal.fromMicros).toBe(BigInt(Date.parse('2026-04-09T18:15Z')) * 1000n);
    expect(nepal.hours).toEqual({ fromSeconds: s('2026-04-09T19:00Z'), toSeconds: s('2026-04-10T18:00Z') });
    // No whole day: an empty range where the hours start, so the three pieces stay disjoint.
    expect(nepal.days).toEqual({ fromSeconds: s('2026-04-09T19:00Z'), toSeconds: s('2026-04-09T19:00Z') });
    expect(nepal.pieces).toEqual({ days: false, hours: true, slots: true });
    expect(wholeUtcUnits(0n, 86_400_000_000n, 'day')).toEqual({ fromSeconds: 0, toSeconds: 86_400 });
    expect(wholeUtcUnits(-3_600_000_000n, 86_400_000_000n, 'day')).toEqual({ fromSeconds: 0, toSeconds: 86_400 });
    expect(wholeUtcUnits(-5_400_000_000n, 0n, 'hour')).toEqual({ fromSeconds: -3600, toSeconds: 0 });
  });

  it('the comparison period has as many days and ends the day before from', () => {
    expect(previousPeriod('2026-04-01', '2026-04-30')).toEqual({ from: '2026-03-02', to: '2026-03-31' });
    expect(previousPeriod('2026-03-01', '2026-03-01')).toEqual({ from: '2026-02-28', to: '2026-02-28' });
    expect(previousPeriod('2024-03-01', '2024-03-07')).toEqual({ from: '2024-02-23', to: '2024-02-29' });
    expect(plan({ ...APRIL, groupBy: 'time' }).previous).toEqual({ from: '2026-03-02', to: '2026-03-31' });
  });
});
