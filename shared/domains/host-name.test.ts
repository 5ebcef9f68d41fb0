// Invariant: unit tests of the one host normal form (DECISIONS.md § Hosts) and of the custom-domain
// input rule (a bare host name, no port); black-box isolation is in redirector.integration.test.ts.
import { describe, expect, it } from 'vitest';
import { isValidHostName, normalizeHost, parseDomainHost } from './host-name.ts';

describe('normalizeHost', () => {
  it('lower-cases and removes the port, the IPv6 brackets and the trailing dot', () => {
    for (const raw of ['go.b.test', 'Go.B.test:443', 'go.b.test.', 'GO.B.TEST', ' go.b.test.:8080 ', 'go.b.test:1']) {
      expect(normalizeHost(raw), raw).toBe('go.b.test');
    }
    expect(normalizeHost('[::1]:8080')).toBe('::1');
    expect(normalizeHost('[2001:DB8::1]')).toBe('2001:db8::1');
    expect(normalizeHost('2001:db8::1')).toBe('2001:db8::1');
    expect(normalizeHost('127.0.0.1:8080')).toBe('127.0.0.1');
  });

  it('reads an invalid or over-long Host as no host', () => {
    const long = `${'a'.repeat(60)}.`.repeat(5).slice(0, 254);
    for (const raw of [
      '',
      'a b',
      'go.b.test:x',
      'go.b.test:443:1',
      '-a.test',
      'a..test',
      'x_y.test',
      '[::1',
      '[zz]',
      '[::1]x',
      `${'a'.repeat(64)}.test`,
      long,
      'h'.repeat(100_000),
    ]) {
      expect(normalizeHost(raw), raw.slice(0, 40)).toBe('');
    }
    const max = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(max.length).toBe(253);
    expect(normalizeHost(`${max}:443`)).toBe(max);
    expect(isValidHostName(`${max}x`)).toBe(false);
  });
});

describe('parseDomainHost (domain add)', () => {
  it('accepts a bare host name, normalised', () => {
    expect(parseDomainHost('Go.B.Test.')).toEqual({ host: 'go.b.test' });
  });

  it('refuses a port with a message naming it', () => {
    const r = parseDomainHost('go.b.test:443');
    expect(r).toEqual({ error: expect.stringContaining('port') });
  });

  it('refuses invalid host names, schemes, paths and IPv6 literals', () => {
    for (const input of ['https://go.b.test', 'go.b.test/x', 'go b.test', 'x_y.test', '', '[::1]', '::1', `${'a'.repeat(64)}.test`]) {
      expect(parseDomainHost(input), input).toHaveProperty('error');
    }
  });
});
