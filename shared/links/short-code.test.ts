import { describe, expect, it } from 'vitest';
import { generateShortCode, isReservedShortCode, isValidShortCode, RESERVED_SHORT_CODES } from './short-code.ts';

describe('short codes', () => {
  it('generates 7 characters of [A-Za-z0-9], never reserved, without collisions in a small sample', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const c = generateShortCode();
      expect(c).toMatch(/^[A-Za-z0-9]{7}$/);
      expect(isReservedShortCode(c)).toBe(false);
      seen.add(c);
    }
    expect(seen.size).toBe(2000);
  });

  it('validates the spec pattern', () => {
    expect(isValidShortCode('abc_DEF-123')).toBe(true);
    expect(isValidShortCode('a'.repeat(50))).toBe(true);
    expect(isValidShortCode('a'.repeat(51))).toBe(false);
    expect(isValidShortCode('abcdef')).toBe(false);
    expect(isValidShortCode('abc.def1')).toBe(false);
  });

  it('reserves at least ten words, case-insensitively', () => {
    expect(RESERVED_SHORT_CODES.filter(isValidShortCode).length).toBeGreaterThanOrEqual(10);
    expect(isReservedShortCode('HealthZ')).toBe(true);
  });
});
