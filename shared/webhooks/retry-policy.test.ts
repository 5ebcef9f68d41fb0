// Invariant: the retry policy, as a table: each answer and failure count gives one outcome, and
// scheduled delays stay within the jitter of the schedule. No Postgres, no HTTP.
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, outcomeOf, RETRY_JITTER, RETRY_SCHEDULE_MS, type AttemptAnswer, type Outcome } from './retry-policy.ts';

const mid = { random: () => 0.5 }; // no jitter: the draw in the middle
const answer = (statusCode: number | null, retryAfterMs: number | null = null): AttemptAnswer => ({ statusCode, retryAfterMs });

describe('outcomeOf', () => {
  it.each<[string, AttemptAnswer, number, Outcome]>([
    ['200 delivers', answer(200), 0, { kind: 'delivered' }],
    ['204 after failures delivers', answer(204), 5, { kind: 'delivered' }],
    ['299 delivers', answer(299), 0, { kind: 'delivered' }],
    ['410 is gone, whatever the failures', answer(410), 3, { kind: 'gone' }],
    ['500, first failure: 5 s', answer(500), 0, { kind: 'retry', delayMs: 5_000 }],
    ['302 is a failure: a redirect is not followed', answer(302), 1, { kind: 'retry', delayMs: 300_000 }],
    ['no answer, third failure: 30 min', answer(null), 2, { kind: 'retry', delayMs: 1_800_000 }],
    ['429 with Retry-After: its delay', answer(429, 42_000), 0, { kind: 'retry', delayMs: 42_000 }],
    ['503 with a Retry-After over a day: a day', answer(503, 10 * MAX_RETRY_AFTER_MS), 0, { kind: 'retry', delayMs: MAX_RETRY_AFTER_MS }],
    ['429 without Retry-After: the schedule', answer(429), 0, { kind: 'retry', delayMs: 5_000 }],
    ['500 with a Retry-After header: the schedule', answer(500, 42_000), 0, { kind: 'retry', delayMs: 5_000 }],
    ['the last scheduled failure: 10 h', answer(500), RETRY_SCHEDULE_MS.length - 1, { kind: 'retry', delayMs: 36_000_000 }],
    ['the schedule spent: failed', answer(500), RETRY_SCHEDULE_MS.length, { kind: 'failed' }],
    ['the schedule spent, 429 with Retry-After: failed', answer(429, 1_000), RETRY_SCHEDULE_MS.length, { kind: 'failed' }],
  ])('%s', (_name, a, failures, expected) => {
    expect(outcomeOf(a, failures, mid)).toEqual(expected);
  });

  it('spreads scheduled delays by the jitter, both ways, never beyond it', () => {
    for (const [draw, factor] of [
      [0, 1 - RETRY_JITTER],
      [0.999999, 1 + RETRY_JITTER],
    ] as const) {
      const o = outcomeOf(answer(500), 1, { random: () => draw });
      expect(o.kind).toBe('retry');
      expect((o as { delayMs: number }).delayMs).toBeCloseTo(300_000 * factor, -1);
    }
    const delays = Array.from({ length: 200 }, () => (outcomeOf(answer(null), 0) as { delayMs: number }).delayMs);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(5_000 * (1 - RETRY_JITTER));
    expect(Math.max(...delays)).toBeLessThanOrEqual(5_000 * (1 + RETRY_JITTER));
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('follows a schedule of its own (tests use short ones)', () => {
    expect(outcomeOf(answer(500), 0, { schedule: [50, 60], ...mid })).toEqual({ kind: 'retry', delayMs: 50 });
    expect(outcomeOf(answer(500), 2, { schedule: [50, 60], ...mid })).toEqual({ kind: 'failed' });
  });
});
