// Invariant: unit tests of TRUST_PROXY parsing and of the client-address choice (DECISIONS.md
// § Trusted proxies), and a check that Fastify given fastifyTrustProxy picks the same address.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientAddressChooser, fastifyTrustProxy, parseTrustProxy, type TrustProxy } from './trusted-proxies.ts';

const setting = (raw: string): TrustProxy => {
  const parsed = parseTrustProxy(raw);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};
const choose = (raw: string, peer: string, xff: string) => clientAddressChooser(setting(raw)).choose(peer, xff);

describe('parseTrustProxy', () => {
  it('reads booleans, hop counts and CIDR lists into one shape', () => {
    expect(setting('')).toEqual({ kind: 'hops', hops: 0 });
    expect(setting('no')).toEqual({ kind: 'hops', hops: 0 });
    expect(setting('TRUE')).toEqual({ kind: 'hops', hops: 1 });
    expect(setting('3')).toEqual({ kind: 'hops', hops: 3 });
    expect(setting('10.0.0.0/8,::1')).toEqual({ kind: 'cidrs', cidrs: ['10.0.0.0/8', '::1/128'] });
    expect(setting('uniquelocal')).toEqual({ kind: 'cidrs', cidrs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] });
  });

  it('names what is wrong', () => {
    expect(parseTrustProxy('10.0.0.0/8,proxy.internal')).toEqual({ error: expect.stringContaining("'proxy.internal'") });
    expect(parseTrustProxy('65')).toEqual({ error: expect.stringContaining('hop count') });
    expect(parseTrustProxy('1.2.3.4/40')).toHaveProperty('error');
  });
});

describe('client address', () => {
  it('trusting nobody: the peer, whatever X-Forwarded-For says', () => {
    expect(choose('false', '203.0.113.9', '1.1.1.1')).toBe('203.0.113.9');
  });

  it('hops: the rightmost entry that is not one of the nearest N hops, never the spoofable leftmost', () => {
    // The client sent "X-Forwarded-For: 6.6.6.6"; the one proxy appended the real client 198.51.100.7.
    expect(choose('true', '10.0.0.2', '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7');
    expect(choose('1', '10.0.0.2', '198.51.100.7')).toBe('198.51.100.7');
    expect(choose('2', '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3')).toBe('198.51.100.7');
    // Fewer entries than hops: the leftmost there is.
    expect(choose('3', '10.0.0.2', '198.51.100.7')).toBe('198.51.100.7');
    expect(choose('1', '10.0.0.2', '')).toBe('10.0.0.2');
  });

  it('CIDRs: walks left past trusted addresses only; an untrusted peer is the client', () => {
    const cidrs = '10.0.0.0/8, fd00::/8';
    expect(choose(cidrs, '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.1.2.3')).toBe('198.51.100.7');
    expect(choose(cidrs, '::ffff:10.0.0.2', '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7');
    expect(choose(cidrs, 'fd00::1', '2001:db8::5')).toBe('2001:db8::5');
    expect(choose(cidrs, '203.0.113.9', '6.6.6.6')).toBe('203.0.113.9'); // not from a proxy: XFF ignored
    expect(choose(cidrs, '10.0.0.2', '10.0.0.9, 10.0.0.8')).toBe('10.0.0.9'); // all trusted: the leftmost
  });

  it('reads the peer address only when the answer depends on it', () => {
    const reads: string[] = [];
    const readPeer = (source: { peer: string }): string => {
      reads.push(source.peer);
      return source.peer;
    };
    const from = { peer: '10.0.0.2' };
    expect(clientAddressChooser(setting('1')).chooseReading(from, readPeer, '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7');
    expect(clientAddressChooser(setting('3')).chooseReading(from, readPeer, '198.51.100.7')).toBe('198.51.100.7');
    expect(reads).toHaveLength(0); // trusted by position: never read
    expect(clientAddressChooser(setting('1')).chooseReading(from, readPeer, '')).toBe('10.0.0.2');
    expect(clientAddressChooser(setting('false')).chooseReading(from, readPeer, '6.6.6.6')).toBe('10.0.0.2');
    expect(clientAddressChooser(setting('10.0.0.0/8')).chooseReading(from, readPeer, '198.51.100.7')).toBe('198.51.100.7');
    expect(reads).toHaveLength(3);
  });

  it('an entry that is not an IP address gives no address', () => {
    expect(choose('1', '10.0.0.2', 'evil, not-an-ip')).toBeNull();
    expect(choose('10.0.0.0/8', '10.0.0.2', '')).toBe('10.0.0.2');
  });
});

describe('Fastify with fastifyTrustProxy', () => {
  it('request.ip is the address the redirector would choose', async () => {
    for (const [raw, peer, xff] of [
      ['false', '203.0.113.9', '1.1.1.1'],
      ['1', '10.0.0.2', '6.6.6.6, 198.51.100.7'],
      ['2', '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3'],
      ['10.0.0.0/8', '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.1.2.3'],
      ['10.0.0.0/8', '203.0.113.9', '6.6.6.6'],
    ] as const) {
      const app = Fastify({ trustProxy: fastifyTrustProxy(setting(raw)) });
      app.get('/', async (request) => ({ ip: request.ip }));
      const res = await app.inject({ method: 'GET', url: '/', remoteAddress: peer, headers: { 'x-forwarded-for': xff } });
      expect((res.json() as { ip: string }).ip, `${raw} ${xff}`).toBe(choose(raw, peer, xff));
      await app.close();
    }
  });
});
