// Invariant: the insured limiter passes the RateLimiter contract, and with its Redis primary
// unreachable it answers within the command timeout from its in-memory insurance, enforcing the
// same limit there.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { InsuredRateLimiter } from './insured-rate-limiter.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { rateLimiterContract } from './rate-limiter.contract.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';
import { freePort } from '../net/free-port.ts';

rateLimiterContract(
  'insured (memory primary)',
  (clock) => new InsuredRateLimiter({ primary: new MemoryRateLimiter(clock), insurance: new MemoryRateLimiter(clock) }),
);

describe('InsuredRateLimiter with Redis down', () => {
  it('answers within the command timeout from the insurance, with the same limit', async () => {
    const deadPort = await freePort(); // nothing listens there
    const redis = new Redis({ port: deadPort, host: '127.0.0.1', commandTimeout: 500, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
    redis.on('error', () => {});
    const switches: boolean[] = [];
    const limiter = new InsuredRateLimiter({
      primary: new RedisRateLimiter(redis, 'dead:'),
      insurance: new MemoryRateLimiter(),
      onSwitch: (insured) => switches.push(insured),
    });
    try {
      const started = Date.now();
      const decisions = [await limiter.consume('org-1:crud', 3)];
      expect(Date.now() - started).toBeLessThan(1_000); // the probe waits for the command timeout only
      const next = Date.now();
      for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('org-1:crud', 3));
      expect(Date.now() - next).toBeLessThan(100); // the others don't wait for Redis at all
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions[3]!.retryAfterSeconds).toBeGreaterThan(0);
      expect(limiter.usingInsurance).toBe(true);
      expect(switches).toEqual([true]);
    } finally {
      await limiter.close();
      redis.disconnect();
    }
  }, 15_000);
});
