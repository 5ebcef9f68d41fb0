// Invariant: the Redis adapter of the shared cache tier passes the contract suite on the machine's
// Redis and on the run's Redis Cluster, under this run's own key prefix; each entry's generation
// key shares its hash slot, and different entries spread over the slots.
import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../test/support/servers.ts';
import type { RedisClient } from '../redis/redis-client.ts';
import { RedisCacheTier } from './redis-cache-tier.ts';
import { sharedCacheTierContract } from './shared-cache-tier.contract.ts';

for (const target of redisTestTargets()) {
  const prefix = redisTestPrefix();
  const redis = await connectTestRedis(target);
  describe(`on ${target.name}`, () => {
    sharedCacheTierContract('redis', {
      make: () => new RedisCacheTier(redis, prefix),
      close: async () => {
        await deletePrefixOn(redis, prefix);
        redis.disconnect();
      },
    });
  });
}

describe('RedisCacheTier key layout', () => {
  it("puts each entry's generation in the entry's hash slot, and spreads entries over the slots", () => {
    const tier = new RedisCacheTier({} as RedisClient, 'shortlink:');
    const slots = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const code = `code${i}xyz`;
      expect(calculateSlot(tier.generationKey('link', code))).toBe(calculateSlot(tier.entryKey('link', code)));
      slots.add(calculateSlot(tier.entryKey('link', code)));
    }
    expect(tier.entryKey('link', 'abc1234')).toBe('shortlink:cache:v1:{link:abc1234}');
    expect(tier.generationKey('link', 'abc1234')).toBe('shortlink:cache:v1:{link:abc1234}:gen');
    expect(slots.size).toBeGreaterThan(190); // 200 links: (nearly) as many slots
  });
});
