// Invariant: the RateLimiter contract runs against every adapter (Redis on the real server and on
// the run's Redis Cluster, when they answer), plus the checks only one adapter can show: bounded memory, key expiry, atomicity across
// connections, and that a borrowed Redis client stays open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../test/support/servers.ts';
import type { RedisClient } from '../redis/redis-client.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { rateLimiterContract } from './rate-limiter.contract.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

rateLimiterContract('memory', (clock) => new MemoryRateLimiter(clock));

describe('MemoryRateLimiter', () => {
  it('forgets a bucket once it has refilled, with no change to its answers', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    await limiter.consume('a', 60);
    await limiter.consume('b', 60);
    expect(limiter.size).toBe(2);
    now += 1_001; // one token back: both full again
    expect(limiter.size).toBe(0);
    expect(await limiter.consume('a', 60)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 59 });
  });

  it('holds at most maxBuckets buckets', async () => {
    const limiter = new MemoryRateLimiter(() => 5_000, { maxBuckets: 3 });
    for (const k of ['a', 'b', 'c', 'd', 'e']) await limiter.consume(k, 10);
    expect(limiter.size).toBe(3);
  });
});

for (const target of redisTestTargets()) {
  describe(`RedisRateLimiter on ${target.name}`, () => {
    const prefix = redisTestPrefix();
    let redis: RedisClient;

    beforeAll(async () => {
      redis = await connectTestRedis(target);
    });
    afterAll(async () => {
      await deletePrefixOn(redis, prefix);
      redis?.disconnect();
    });

    rateLimiterContract('redis', (clock) => new RedisRateLimiter(redis, prefix, clock ? { clock } : {}));

    it('keeps buckets under the prefix with an expiry of the time until full', async () => {
      const limiter = new RedisRateLimiter(redis, prefix);
      await limiter.consume('expiry', 60); // one token short: full again in 1 s
      const key = limiter.bucketKey('expiry');
      expect(key.startsWith(prefix)).toBe(true);
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(1_000);
      expect(ttl).toBeLessThanOrEqual(2_000);
    });

    it('is atomic across connections and hosts: 50 calls over 5 clients allow exactly 20 (server clock)', async () => {
      const clients = await Promise.all(Array.from({ length: 5 }, () => connectTestRedis(target)));
      try {
        const limiters = clients.map((c) => new RedisRateLimiter(c, prefix));
        const calls = Array.from({ length: 50 }, (_, i) => limiters[i % limiters.length]!.consume('shared', 20));
        const results = await Promise.all(calls);
        expect(results.filter((d) => d.allowed)).toHaveLength(20);
      } finally {
        for (const c of clients) c.disconnect();
      }
    });

    it('leaves the borrowed client open on close()', async () => {
      const limiter = new RedisRateLimiter(redis, prefix);
      await limiter.close();
      expect(await redis.ping()).toBe('PONG');
    });
  });
}
