// Invariant: the preview fetcher connects only to addresses this policy allows. Every address a
// host name resolves to is checked (not just the first), IP literals are checked too, and the
// check runs again for every redirect hop, because each hop is a new connection through the
// guarded lookup. Private, loopback, link-local, CGNAT, multicast, reserved and documentation
// ranges are refused unless the operator allows private targets (tests only). An IPv6 address
// that carries an IPv4 address is judged as that IPv4 address (IPv4-mapped ::ffff:0:0/96 in any
// spelling, and the NAT64 well-known prefix 64:ff9b::/96, which RFC 6052 reserves for global
// IPv4); the other embedding ranges (local-use NAT64 64:ff9b:1::/48, IPv4-translated, IPv4-
// compatible, 6to4, Teredo) are refused outright.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible range
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48], // local-use NAT64: the operator's translator may reach anything
  ['100::', 64],
  ['2001::', 23], // IETF protocol assignments, Teredo (2001::/32) included
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4 can embed private IPv4
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit words of an IPv6 literal (zone dropped, trailing dotted quad allowed), or null. */
function ipv6Words(address: string): number[] | null {
  let text = address.split('%')[0] as string;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string | undefined): number[] => (part === undefined || part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const words = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

/** The IPv4 address an IPv6 address stands for and is judged by (IPv4-mapped, NAT64 well-known prefix), or null. */
function embeddedIpv4(words: readonly number[]): string | null {
  const [w0, w1, w2, w3, w4, w5, w6 = 0, w7 = 0] = words;
  const mapped = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0xffff;
  const nat64 = w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0;
  return mapped || nat64 ? `${w6 >> 8}.${w6 & 0xff}.${w7 >> 8}.${w7 & 0xff}` : null;
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const words = ipv6Words(address);
    if (words === null) return false;
    const ipv4 = embeddedIpv4(words);
    if (ipv4 !== null) return isPublicAddress(ipv4);
    return !blocked.check(words.map((w) => w.toString(16)).join(':'), 'ipv6');
  }
  return false;
}

export type AddressPredicate = (address: string) => boolean;

export class RefusedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`preview fetch refused: ${host} resolves to non-public address ${address}`);
    this.name = 'RefusedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for http.request that fails when any resolved address is refused. */
export function guardedLookup(allowed: AddressPredicate) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: typeof options.family === 'number' ? options.family : 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !allowed(a.address));
      if (bad) return callback(Object.assign(new RefusedAddressError(hostname, bad.address), { code: 'EREFUSEDADDRESS' }), []);
      if (list.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
