import { describe, expect, it } from 'vitest';
import { generateShortCode, isReservedShortCode, isValidShortCode, RESERVED_SHORT_CODES, SHORT_CODE_PATTERN } from './short-code.ts';

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

  it('agrees with SHORT_CODE_PATTERN on 50,000 random near-codes', () => {
    const alphabet = 'aZ09_-.~/%é ';
    for (let i = 0; i < 50_000; i++) {
      let s = '';
      const n = Math.floor(Math.random() * 56);
      for (let k = 0; k < n; k++) s += alphabet[Math.floor(Math.random() * alphabet.length)] as string;
      if (Math.random() < 0.8) s = s.replace(/[^a-zA-Z0-9_-]/g, 'x');
      expect(isValidShortCode(s), s).toBe(SHORT_CODE_PATTERN.test(s));
    }
  });

  it('reserves at least ten words, case-insensitively', () => {
    expect(RESERVED_SHORT_CODES.filter(isValidShortCode).length).toBeGreaterThanOrEqual(10);
    expect(isReservedShortCode('HealthZ')).toBe(true);
  });
});
