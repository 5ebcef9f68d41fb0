// Invariant: the load kit's requests look like people clicking a campaign: each visit picks a link
// Zipf(s=1) over the list (the first link the most visited), a User-Agent from a fixed spread of
// real desktop and mobile browsers (never a crawler's), optionally an X-Forwarded-For address out
// of 10,000 public IPv4 addresses, and carries the run's marker as its Referer, so the run's clicks
// can be counted back by referrerDomain. Everything is deterministic for a seed, and each request
// is one string concatenation of parts formatted once.

/** One link to visit: the Host header to send and the request path (with any query). */
export interface Visit {
  host: string;
  path: string;
}

/** Zipf(s=1) ranks 0 … n-1 (rank 0 the most frequent), by inverse CDF on a precomputed table. */
export function zipfSampler(n: number, seed: number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 1; k <= n; k++) cdf[k - 1] = sum += 1 / k;
  const rand = lcg(seed);
  return () => {
    const u = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A linear congruential generator: uniform numbers in [0, 1), the same sequence for a seed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Real browsers' User-Agents with a weight each (roughly their share of clicks on shared links:
 * mostly phones). None contains a link-preview crawler's token.
 */
export const USER_AGENTS: readonly (readonly [string, number])[] = [
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 12],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 10],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 16_7_10 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1', 4],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 3],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 14],
  ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.165 Mobile Safari/537.36', 4],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36', 4],
  ['Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 5],
  ['Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0', 1],
  ['Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.179 Mobile Safari/537.36', 2],
  ['Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 2],
  ['Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 1],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 14],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36', 4],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0', 5],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0', 3],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 5],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 4],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0', 1],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 1],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 1],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 1],
];

/** `count` distinct public IPv4 addresses (no private, loopback, link-local, CGNAT or multicast /8s), the same for a seed. */
export function publicAddresses(count: number, seed: number): string[] {
  const excluded = new Set([0, 10, 100, 127, 169, 172, 192, 198, 203]);
  const rand = lcg(seed);
  const seen = new Set<string>();
  while (seen.size < count) {
    const a = 1 + Math.floor(rand() * 223);
    if (excluded.has(a)) continue;
    seen.add(`${a}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${1 + Math.floor(rand() * 254)}`);
  }
  return [...seen];
}

export interface TrafficOptions {
  visits: readonly Visit[];
  /** Prepended to every path (the target URL's own path, without its trailing slash). */
  basePath: string;
  /** The Referer every visit carries (the run's marker). */
  referrer: string;
  forwardedFor: boolean;
  seed: number;
}

export const FORWARDED_ADDRESSES = 10_000;

/** Returns the next request's bytes (as a latin1 string) each time it is called. */
export function trafficGenerator(o: TrafficOptions): () => string {
  const heads = o.visits.map((v) => `GET ${o.basePath}${v.path} HTTP/1.1\r\nHost: ${v.host}\r\n`);
  const tail = `Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-GB,en;q=0.9\r\nReferer: ${o.referrer}\r\nSec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Site: cross-site\r\nConnection: keep-alive\r\n`;
  const agents = weighted(USER_AGENTS).map((ua) => `User-Agent: ${ua}\r\n${tail}`);
  const addresses = o.forwardedFor ? publicAddresses(FORWARDED_ADDRESSES, o.seed).map((a) => `X-Forwarded-For: ${a}\r\n`) : [''];
  const link = zipfSampler(heads.length, o.seed);
  const pick = lcg(o.seed ^ 0x5bd1e995);
  return () => `${heads[link()]}${agents[Math.floor(pick() * agents.length)]}${addresses[Math.floor(pick() * addresses.length)]}\r\n`;
}

/** Each item repeated by its weight, so a uniform pick follows the weights. */
function weighted(items: readonly (readonly [string, number])[]): string[] {
  return items.flatMap(([item, weight]) => Array.from({ length: weight }, () => item));
}
