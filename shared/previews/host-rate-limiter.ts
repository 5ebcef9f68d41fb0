// Invariant: each destination host may start at most `perMinute` preview fetches a minute, in
// bursts of at most `burst` (a token bucket per host). The map of hosts is bounded: past
// `maxHosts`, the least recently used host is forgotten (lru-cache), so memory never grows with
// the number of distinct hosts.
import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  at: number;
}

export class HostRateLimiter {
  private readonly buckets: LRUCache<string, Bucket>;
  private readonly msPerToken: number;

  constructor(
    perMinute: number,
    private readonly burst: number,
    maxHosts = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.msPerToken = 60_000 / perMinute;
    this.buckets = new LRUCache({ max: maxHosts });
  }

  /** Takes a token for `host` and returns 0, or returns how many ms remain until one is available. */
  take(host: string): number {
    const now = this.now();
    const b = this.buckets.get(host) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + (now - b.at) / this.msPerToken);
    b.at = now;
    this.buckets.set(host, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) * this.msPerToken);
  }
}
