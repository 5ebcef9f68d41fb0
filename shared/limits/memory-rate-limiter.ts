// Invariant: one process's token buckets, held in a bounded LRU map. A bucket is dropped once it
// has refilled (a missing bucket is a full one, so that changes nothing), and the least recently
// used bucket is dropped when `maxBuckets` is reached (it then starts full again: under that
// pressure the limit is lenient, never stricter). Buckets are not shared between processes; use
// the Redis adapter when several processes must share one limit.
import { LRUCache } from 'lru-cache';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';
import { assertLimitPerMin, takeToken, type BucketState } from './token-bucket.ts';

export interface MemoryRateLimiterOptions {
  /** Most buckets kept at once (default 100 000). */
  maxBuckets?: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #clock: () => number;
  readonly #buckets: LRUCache<string, BucketState>;

  /** @param clock milliseconds since any fixed origin; tests pass a hand-driven clock. */
  constructor(clock: () => number = Date.now, options: MemoryRateLimiterOptions = {}) {
    this.#clock = clock;
    this.#buckets = new LRUCache<string, BucketState>({
      max: options.maxBuckets ?? 100_000,
      // Expiry follows the same clock as the buckets; no cached time, no timers.
      perf: { now: clock },
      ttlResolution: 0,
    });
  }

  async consume(key: string, limitPerMin: number): Promise<RateDecision> {
    assertLimitPerMin(limitPerMin);
    const step = takeToken(this.#buckets.get(key), limitPerMin, this.#clock());
    this.#buckets.set(key, step.state, { ttl: step.msUntilFull });
    return step.decision;
  }

  /** Buckets currently held (refilled ones are purged first). */
  get size(): number {
    this.#buckets.purgeStale();
    return this.#buckets.size;
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }
}
