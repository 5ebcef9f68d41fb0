import { describe, expect, it } from 'vitest';
import { type Sample, settle } from './analytics-check.ts';

/** Samples from 'atMs:stored' pairs. */
const at = (text: string): Sample[] =>
  text
    .split(' ')
    .filter(Boolean)
    .map((pair) => {
      const [atMs, stored] = pair.split(':').map(Number) as [number, number];
      return { atMs, stored };
    });
const o = { quietMs: 10_000, maxWaitMs: 60_000 };

describe('analytics settle', () => {
  it('settles at once when stored reaches served, and on a count unchanged for the quiet time, equal or not', () => {
    const cases: [string, string][] = [
      ['', 'wait'],
      ['0:900', 'wait'],
      ['0:900 2000:1000', 'settled'],
      ['0:10 2000:990 4000:990 10000:990', 'wait'],
      ['0:10 2000:990 4000:990 12000:990', 'settled'],
      ['0:1001 10000:1001', 'settled'],
    ];
    for (const [samples, verdict] of cases) expect(settle(at(samples), 1000, o), samples).toBe(verdict);
  });

  it('gives up on a count still moving after the longest wait', () => {
    const moving = at(Array.from({ length: 31 }, (_, i) => `${i * 2000}:${i}`).join(' '));
    expect(settle(moving.slice(0, 30), 1000, o)).toBe('wait');
    expect(settle(moving, 1000, o)).toBe('moving');
  });
});
