// Invariant: a RawHit's click time is the wall-clock millisecond it was decided in, in
// microseconds, as an exact integer.
import { describe, expect, it } from 'vitest';
import { clickMicros } from './raw-hit-builder.ts';

describe('raw hit click time', () => {
  it('gives integer microseconds within the millisecond of the click', () => {
    for (let i = 0; i < 1000; i++) {
      const now = Date.now();
      const micros = clickMicros(now);
      expect(Number.isSafeInteger(micros)).toBe(true);
      expect(Math.floor(micros / 1000)).toBe(now);
    }
  });
});
