// Invariant: ipv4Value accepts exactly what node:net's isIPv4 accepts, with the address's value;
// Ipv4Ids gives each distinct value one dense id, as a Map would, across its growth.
import { isIPv4 } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ipv4Value, Ipv4Ids } from './ipv4.ts';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('ipv4Value', () => {
  it('reads dotted quads like isIPv4 and gives their value', () => {
    expect(ipv4Value('8.8.8.8')).toBe(0x08080808);
    expect(ipv4Value('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(ipv4Value('0.0.0.0')).toBe(0);
    expect(ipv4Value('x1.2.3.4y', 1, 8)).toBe(0x01020304);
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.',
      '.1.2.3.4',
      '1..2.3',
      '01.2.3.4',
      '1.2.3.256',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1.2.3.-4',
      '::1',
      '1.2.3.4/8',
      '１.2.3.4',
      '1.2.3.1000',
    ]) {
      expect(ipv4Value(bad), bad).toBe(-1);
      expect(isIPv4(bad), bad).toBe(false);
    }
  });

  it('agrees with isIPv4 on 200,000 random near-addresses', () => {
    const random = lcg(7);
    const alphabet = '0123456789....  x:/';
    for (let i = 0; i < 200_000; i++) {
      let s: string;
      if (i % 2 === 0) {
        const part = (): string => (random() < 0.1 ? `0${Math.floor(random() * 30)}` : String(Math.floor(random() * 300)));
        s = [part(), part(), part(), part()].join('.');
      } else {
        s = Array.from({ length: 5 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      }
      const v = ipv4Value(s);
      expect(v >= 0, s).toBe(isIPv4(s));
      if (v >= 0) expect(v).toBe(s.split('.').reduce((n, p) => n * 256 + Number(p), 0));
    }
  });
});

describe('Ipv4Ids', () => {
  it('gives each distinct value one dense id, as a Map does, across growth', () => {
    const ids = new Ipv4Ids();
    const map = new Map<number, number>();
    const random = lcg(11);
    for (let i = 0; i < 100_000; i++) {
      // Half of them repeat (a small range), half are spread over the whole space.
      const value = Math.floor(random() * (i % 2 === 0 ? 30_000 : 2 ** 32));
      const known = map.get(value);
      const got = ids.idOf(value, map.size);
      if (known === undefined) {
        expect(got).toBe(map.size);
        map.set(value, got);
      } else expect(got).toBe(known);
    }
    expect(map.size).toBeGreaterThan(60_000);
  });
});
