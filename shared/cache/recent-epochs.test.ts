// Invariant: the outbox relay's purge of the Redis tier reaches an entry written in the current
// cache epoch and in the one before it (a rolling restart's old cluster), and refuses a fill read
// before it, on the machine's Redis under this run's own key prefix.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deleteRedisPrefix, redisTestPrefix } from '../../test/support/servers.ts';
import { bumpCacheEpoch, invalidateRecentEpochs, RedisCacheTier } from './redis-cache-tier.ts';

const redisUrl = inject('realRedisUrl');

if (redisUrl)
  describe('invalidateRecentEpochs (redis)', () => {
    const prefix = redisTestPrefix();
    const redis = new Redis(redisUrl);
    afterAll(async () => {
      redis.disconnect();
      await deleteRedisPrefix(redisUrl, prefix);
    });

    it('drops the entry in the current and the previous epoch, not older ones, and refuses fills read before it', async () => {
      const tiers: RedisCacheTier[] = [];
      for (let i = 0; i < 3; i++) tiers.push(new RedisCacheTier(redis, prefix, await bumpCacheEpoch(redis, prefix)));
      const [oldest, previous, current] = tiers as [RedisCacheTier, RedisCacheTier, RedisCacheTier];
      for (const tier of tiers) {
        const { generation } = await tier.lookup('link', 'abc');
        expect(await tier.fill('link', 'abc', generation, '{"v":1}', 60_000)).toBe(true);
      }
      const before = await current.lookup('link', 'xyz');
      await invalidateRecentEpochs(redis, prefix, [
        { kind: 'link', id: 'abc' },
        { kind: 'link', id: 'xyz' },
      ]);
      expect((await current.lookup('link', 'abc')).value).toBeNull();
      expect((await previous.lookup('link', 'abc')).value).toBeNull();
      expect((await oldest.lookup('link', 'abc')).value).toBe('{"v":1}');
      expect(await current.fill('link', 'xyz', before.generation, '{"v":0}', 60_000)).toBe(false);
    });
  });
