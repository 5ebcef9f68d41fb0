// Invariant: TRUST_PROXY has one parsed shape, read by both the redirector and the API: a hop
// count (true = 1, false = 0) or a list of trusted CIDRs. The client address is chosen by walking
// from the peer towards the left of X-Forwarded-For and stopping at the first address that is not
// trusted (the nearest `hops` addresses are trusted, or those inside a trusted CIDR); when every
// one is trusted it is the leftmost. The leftmost entry is never believed on its own: a client
// can write anything there. An entry that is not an IP address ends the walk with no address.
import { BlockList, isIP } from 'node:net';
import { ipv4Value } from './ipv4.ts';

export type TrustProxy = { readonly kind: 'hops'; readonly hops: number } | { readonly kind: 'cidrs'; readonly cidrs: readonly string[] };

export const NO_PROXY: TrustProxy = Object.freeze({ kind: 'hops', hops: 0 });
const MAX_HOPS = 64;

/** Names Express's `trust proxy` accepts for common ranges. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** A CIDR (or a single address) in normal form, or null when it is neither. */
function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = text.split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address: address.toLowerCase(), prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Parses TRUST_PROXY: '', 'false', 'no' and '0' trust nobody; 'true' and 'yes' one hop; a whole
 * number that many hops; otherwise a comma-separated list of CIDRs, addresses or the names
 * loopback, linklocal, uniquelocal. An error message names what is wrong.
 */
export function parseTrustProxy(raw: string): TrustProxy | { error: string } {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false' || value === 'no') return NO_PROXY;
  if (value === 'true' || value === 'yes') return { kind: 'hops', hops: 1 };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_HOPS ? { kind: 'hops', hops } : { error: `a hop count is at most ${MAX_HOPS}` };
  }
  const cidrs: string[] = [];
  for (const part of value.split(',').map((p) => p.trim())) {
    const named = NAMED_RANGES[part];
    if (named) {
      cidrs.push(...named);
      continue;
    }
    const cidr = parseCidr(part);
    if (cidr === null)
      return {
        error: `'${part}' is not a CIDR, an IP address, loopback, linklocal or uniquelocal (expected true, false, a hop count or a comma-separated list)`,
      };
    cidrs.push(`${cidr.address}/${cidr.prefix}`);
  }
  return { kind: 'cidrs', cidrs };
}

/**
 * The same setting for Fastify's `trustProxy` option: false, or this module's own trust predicate
 * (proxy-addr calls it with the same (address, hop) arguments, hop 0 being the peer), so the API
 * and the redirector choose the client address by one rule.
 */
export function fastifyTrustProxy(t: TrustProxy): false | ((address: string, hop: number) => boolean) {
  const chooser = clientAddressChooser(t);
  return chooser.readsForwardedFor ? chooser.trusts : false;
}

/** An IPv4-mapped IPv6 address as IPv4; anything else unchanged. */
function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export interface ClientAddressChooser {
  /** Whether X-Forwarded-For is read at all (any hop or CIDR trusted). */
  readonly readsForwardedFor: boolean;
  /** Whether the address at `hop` (0: the peer, 1: the rightmost X-Forwarded-For entry, …) is a trusted proxy. */
  trusts(address: string, hop: number): boolean;
  /** The client address given the peer's address and the X-Forwarded-For header ('' if absent). */
  choose(peer: string | null, forwardedFor: string): string | null;
  /**
   * The same, reading the peer's address as readPeer(source) only when the answer depends on it:
   * with a hop count and an X-Forwarded-For header the peer is trusted by position, so it is never
   * read (reading it costs the redirector more than a microsecond per request). No closure is
   * needed per request: readPeer is a fixed function, source the request's own object.
   */
  chooseReading<S>(source: S, readPeer: (source: S) => string | null, forwardedFor: string): string | null;
}

export function clientAddressChooser(t: TrustProxy): ClientAddressChooser {
  let trusted: (address: string, index: number) => boolean;
  if (t.kind === 'hops') {
    const hops = t.hops;
    trusted = (_address, index) => index < hops;
  } else {
    const list = new BlockList();
    for (const cidr of t.cidrs) {
      const parsed = parseCidr(cidr);
      if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    trusted = (address) => {
      const a = unmapped(address);
      const version = isIP(a);
      return version !== 0 && list.check(a, version === 4 ? 'ipv4' : 'ipv6');
    };
  }
  const readsForwardedFor = t.kind === 'cidrs' ? t.cidrs.length > 0 : t.hops > 0;
  const oneHop = t.kind === 'hops' && t.hops === 1;
  function chooseReading<S>(source: S, readPeer: (source: S) => string | null, forwardedFor: string): string | null {
    const byPosition = t.kind === 'hops' && readsForwardedFor && forwardedFor !== '';
    if (oneHop && byPosition) {
      // The common case (one proxy): the client is the rightmost entry. A dotted-quad IPv4 there
      // is read without splitting the header; anything else takes the general walk below.
      const from = forwardedFor.lastIndexOf(',') + 1;
      let start = from;
      let end = forwardedFor.length;
      while (start < end && forwardedFor.charCodeAt(start) === 32) start++;
      while (end > start && forwardedFor.charCodeAt(end - 1) === 32) end--;
      if (ipv4Value(forwardedFor, start, end) >= 0) return start === 0 && end === forwardedFor.length ? forwardedFor : forwardedFor.slice(start, end);
    }
    const peer = byPosition ? '' : readPeer(source);
    if (!byPosition && (!readsForwardedFor || peer === null || forwardedFor === '' || !trusted(peer, 0))) return peer;
    const entries = forwardedFor.split(',');
    let client: string | null = peer;
    // From the rightmost entry (added by the nearest proxy) towards the left.
    for (let i = entries.length - 1, index = 1; i >= 0; i--, index++) {
      const entry = (entries[i] ?? '').trim();
      if (isIP(entry) === 0) return null;
      client = unmapped(entry);
      if (!trusted(client, index)) return client;
    }
    return client;
  }
  const itself = (peer: string | null): string | null => peer;
  return {
    readsForwardedFor,
    trusts: trusted,
    choose: (peer, forwardedFor) => chooseReading(peer, itself, forwardedFor),
    chooseReading,
  };
}
