// Invariant: the ids and click times a RawHit carries are what the event schema stores: a valid
// UUIDv7 (version 7, variant 10) whose first 48 bits are the click's millisecond, never repeated,
// and microseconds whose millisecond part is the click's.
import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { uuidv7Text, wallClockMicros } from './raw-hit-builder.ts';

describe('raw hit ids and times', () => {
  it('mints distinct UUIDv7 ids carrying the millisecond they were minted for', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50_000; i++) {
      const ms = 1_795_390_984_724 + (i % 7) * 1_234_567;
      const id = uuidv7Text(ms);
      expect(validate(id) && version(id) === 7 && '89ab'.includes(id[19] ?? '')).toBe(true);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
      seen.add(id);
    }
    expect(seen.size).toBe(50_000);
    expect(uuidv7Text(0).startsWith('00000000-0000-7')).toBe(true);
    expect(uuidv7Text(2 ** 48 - 1).startsWith('ffffffff-ffff-7')).toBe(true);
  });

  it('gives microseconds within the millisecond of the click', () => {
    const now = Date.now();
    const micros = Number(wallClockMicros(now));
    expect(Number.isSafeInteger(micros)).toBe(true);
    expect(Math.floor(micros / 1000)).toBe(now);
  });
});
