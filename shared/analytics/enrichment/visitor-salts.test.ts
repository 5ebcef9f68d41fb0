// Invariant: every visitor salt store gives one salt per (organisation, local day), the same to
// every asker while it lives and another for another day or organisation, and keeps it no longer
// than 48 h: in memory (a fake clock), and in Redis (the machine's server and the run's Redis
// Cluster), where two processes' stores share it and the key carries a TTL of at most 48 h.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../../test/support/servers.ts';
import type { RedisClient } from '../../redis/redis-client.ts';
import { MemoryVisitorSalts } from './memory-visitor-salts.ts';
import { RedisVisitorSalts } from './redis-visitor-salts.ts';
import { SALT_TTL_SECONDS, type VisitorSaltStore } from './visitor-salts.ts';

function saltStoreContract(name: string, open: () => VisitorSaltStore): void {
  describe(`visitor salts (${name})`, () => {
    it('one salt per organisation and local day, the same on every ask', async () => {
      const store = open();
      const [a, b, c, again] = await store.salts([
        { orgId: 'org-a', day: '2026-06-10' },
        { orgId: 'org-a', day: '2026-06-11' },
        { orgId: 'org-b', day: '2026-06-10' },
        { orgId: 'org-a', day: '2026-06-10' },
      ]);
      expect(a).toBeInstanceOf(Buffer);
      expect(a?.length).toBe(32);
      expect(again?.equals(a as Buffer)).toBe(true);
      expect(b?.equals(a as Buffer)).toBe(false);
      expect(c?.equals(a as Buffer)).toBe(false);
      const [later] = await store.salts([{ orgId: 'org-a', day: '2026-06-10' }]);
      expect(later?.equals(a as Buffer)).toBe(true);
    });
  });
}

saltStoreContract('memory', () => new MemoryVisitorSalts());

describe('MemoryVisitorSalts', () => {
  it('forgets a salt 48 h after it was made', async () => {
    let now = 1_000_000;
    const store = new MemoryVisitorSalts(() => now);
    const key = { orgId: 'org-a', day: '2026-06-10' };
    const [first] = await store.salts([key]);
    now += SALT_TTL_SECONDS * 1000 - 1;
    expect((await store.salts([key]))[0]?.equals(first as Buffer)).toBe(true);
    now += 1;
    await store.salts([{ orgId: 'org-b', day: '2026-06-12' }]); // a new salt evicts the expired ones
    expect(store.size).toBe(1);
    expect((await store.salts([key]))[0]?.equals(first as Buffer)).toBe(false);
  });
});

for (const target of redisTestTargets()) {
  describe(`RedisVisitorSalts on ${target.name}`, () => {
    const prefix = redisTestPrefix();
    let redis: RedisClient;
    beforeAll(async () => {
      redis = await connectTestRedis(target);
    });
    afterAll(async () => {
      await deletePrefixOn(redis, prefix);
      redis?.disconnect();
    });

    saltStoreContract('redis', () => new RedisVisitorSalts(redis, prefix));

    it("two processes' stores share a salt, which Redis holds for at most 48 h", async () => {
      const key = { orgId: 'org-fleet', day: '2026-06-10' };
      const [one] = await new RedisVisitorSalts(redis, prefix).salts([key]);
      const [two] = await new RedisVisitorSalts(redis, prefix).salts([key]);
      expect(two?.equals(one as Buffer)).toBe(true);
      const store = new RedisVisitorSalts(redis, prefix);
      const ttl = await redis.ttl(store.key(key));
      expect(ttl).toBeGreaterThan(SALT_TTL_SECONDS - 10);
      expect(ttl).toBeLessThanOrEqual(48 * 3600);
    });

    it('answers null, not a salt of its own, when Redis cannot be reached', async () => {
      const gone = await connectTestRedis(target);
      gone.disconnect();
      const [salt] = await new RedisVisitorSalts(gone, prefix).salts([{ orgId: 'org-down', day: '2026-06-10' }]);
      expect(salt).toBeNull();
    });
  });
}
