// Invariant: the Redis adapter of the shared cache tier passes the contract suite on the
// machine's Redis, under this run's own key prefix and cache epoch.
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { deleteRedisPrefix, redisTestPrefix } from '../../test/support/servers.ts';
import { RedisCacheTier } from './redis-cache-tier.ts';
import { sharedCacheTierContract } from './shared-cache-tier.contract.ts';

const redisUrl = inject('realRedisUrl');
if (redisUrl) {
  const prefix = redisTestPrefix();
  let redis: Redis | null = null;
  sharedCacheTierContract('redis', {
    make: () => new RedisCacheTier((redis ??= new Redis(redisUrl)), prefix, 'contract'),
    close: async () => {
      redis?.disconnect();
      await deleteRedisPrefix(redisUrl, prefix);
    },
  });
}
