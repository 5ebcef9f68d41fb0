// Invariant: both ClickCounterStore adapters pass the one contract suite: memory, and Redis on the
// machine's server and on the run's Redis Cluster, under this run's own key prefix.
import { describe } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../test/support/servers.ts';
import { clickCounterStoreContract } from './click-counter-store.contract.ts';
import { MemoryClickCounterStore } from './memory-click-counter-store.ts';
import { RedisClickCounterStore } from './redis-click-counter-store.ts';

clickCounterStoreContract('memory', { make: () => new MemoryClickCounterStore() });

for (const target of redisTestTargets()) {
  const prefix = redisTestPrefix();
  const redis = await connectTestRedis(target);
  describe(`on ${target.name}`, () => {
    clickCounterStoreContract('redis', {
      make: () => new RedisClickCounterStore(redis, prefix),
      close: async () => {
        await deletePrefixOn(redis, prefix);
        redis.disconnect();
      },
    });
  });
}
