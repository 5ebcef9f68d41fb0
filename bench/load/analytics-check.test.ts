import { describe, expect, it } from 'vitest';
import { settle } from './analytics-check.ts';

describe('analytics settle', () => {
  const at = (pairs: [number, number][]) => pairs.map(([atMs, stored]) => ({ atMs, stored }));
  const o = { quietMs: 10_000, maxWaitMs: 60_000 };

  it('settles at once when stored reaches served', () => {
    expect(settle(at([[0, 900]]), 1000, o)).toBe('wait');
    expect(
      settle(
        at([
          [0, 900],
          [2000, 1000],
        ]),
        1000,
        o,
      ),
    ).toBe('settled');
  });

  it('settles on a count unchanged for the quiet time, equal or not', () => {
    expect(
      settle(
        at([
          [0, 10],
          [2000, 990],
          [4000, 990],
          [10_000, 990],
        ]),
        1000,
        o,
      ),
    ).toBe('wait');
    expect(
      settle(
        at([
          [0, 10],
          [2000, 990],
          [4000, 990],
          [12_000, 990],
        ]),
        1000,
        o,
      ),
    ).toBe('settled');
    expect(
      settle(
        at([
          [0, 1001],
          [10_000, 1001],
        ]),
        1000,
        o,
      ),
    ).toBe('settled');
  });

  it('gives up on a count still moving after the longest wait', () => {
    const moving = at(Array.from({ length: 31 }, (_, i) => [i * 2000, i] as [number, number]));
    expect(settle(moving.slice(0, 30), 1000, o)).toBe('wait');
    expect(settle(moving, 1000, o)).toBe('moving');
    expect(settle([], 1000, o)).toBe('wait');
  });
});
