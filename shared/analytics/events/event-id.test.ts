// Invariant: the ids minted for events are what the event schema stores: valid UUIDv7s (version
// 7, variant 10) whose first 48 bits are the click's millisecond, never repeated, and their text
// reads back to the same bytes.
import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { eventIdText, mintEventIds, writeEventId } from './event-id.ts';

describe('event ids', () => {
  it('mints distinct UUIDv7 ids carrying the millisecond of each click', () => {
    const n = 50_000;
    const micros = Float64Array.from({ length: n }, (_, i) => (1_795_390_984_724 + (i % 7) * 1_234_567) * 1000 + (i % 1000));
    micros[0] = 0;
    micros[1] = Number.MAX_SAFE_INTEGER; // the last click time a Number holds exactly (2255)
    const bytes = new Uint8Array(16 * n);
    mintEventIds(micros, n, bytes);
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const id = eventIdText(bytes, 16 * i);
      expect(validate(id) && version(id) === 7 && '89ab'.includes(id[19] ?? '')).toBe(true);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Math.floor((micros[i] as number) / 1000));
      const back = new Uint8Array(16);
      expect(writeEventId(id.toUpperCase(), back, 0)).toBe(true);
      expect(Buffer.from(back).equals(Buffer.from(bytes.subarray(16 * i, 16 * i + 16)))).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(n);
    expect(eventIdText(bytes, 0).startsWith('00000000-0000-7')).toBe(true);
    expect(eventIdText(bytes, 16).replace(/-/g, '').slice(0, 12)).toBe(
      Math.floor(Number.MAX_SAFE_INTEGER / 1000)
        .toString(16)
        .padStart(12, '0'),
    );
  });

  it('refuses text that is no UUID', () => {
    const out = new Uint8Array(16);
    for (const bad of [
      '',
      'not-a-uuid-at-all-not-a-uuid-at-all!',
      '0192a3b4-c5d6-7e8f-9012-00000000000g',
      '0192a3b4c5d67e8f901200000000000000ff',
      '0192a3b4-c5d6-7e8f-9012-0000000000é0',
    ]) {
      expect(writeEventId(bad, out, 0), bad).toBe(false);
    }
  });
});
