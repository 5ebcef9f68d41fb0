// Invariant: both ClickCounterStore adapters pass the one contract suite: memory, and Redis on the
// machine's server under this run's own key prefix.
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { deleteRedisPrefix, redisTestPrefix } from '../../test/support/servers.ts';
import { clickCounterStoreContract } from './click-counter-store.contract.ts';
import { MemoryClickCounterStore } from './memory-click-counter-store.ts';
import { RedisClickCounterStore } from './redis-click-counter-store.ts';

clickCounterStoreContract('memory', { make: () => new MemoryClickCounterStore() });

const redisUrl = inject('realRedisUrl');
if (redisUrl) {
  const prefix = redisTestPrefix();
  let redis: Redis | null = null;
  clickCounterStoreContract('redis', {
    make: () => new RedisClickCounterStore((redis ??= new Redis(redisUrl)), prefix),
    close: async () => {
      redis?.disconnect();
      await deleteRedisPrefix(redisUrl, prefix);
    },
  });
}
