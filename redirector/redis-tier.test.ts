// Invariant: the Redis tier is tested on the machine's real Redis and on the run's Redis Cluster
// (each skipped when it does not answer) with a unique key prefix: two redirectors stand for two
// workers or hosts of a fleet, sharing Redis, Postgres and the Redis invalidation bus.
import { MemoryLinkClickCounter } from '../shared/quotas/memory-link-click-counter.ts';
import { MemoryRateLimiter } from '../shared/limits/memory-rate-limiter.ts';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RedisClient } from '../shared/redis/redis-client.ts';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../test/support/redis-targets.ts';
import { RedisInvalidationBus } from '../shared/bus/redis-invalidation-bus.ts';
import { createTestDatabase, redisTestPrefix, type TestDatabase } from '../test/support/servers.ts';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { RedisCacheTier } from '../shared/cache/redis-cache-tier.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { RedisClickCounterStore } from '../shared/quotas/redis-click-counter-store.ts';
import { PostgresUsageStore } from '../shared/quotas/usage-store.ts';
import { send, until } from '../test/support/http-request.ts';
import { seedLink, seedOrg } from '../test/support/seed.ts';
import { TieredCache } from '../shared/cache/tiered-cache.ts';

for (const target of redisTestTargets()) {
  describe(`Redis tier on ${target.name}`, () => {
    const prefix = redisTestPrefix();
    const entryKey = (code: string, p = prefix): string => new RedisCacheTier(redis, p).entryKey('link', code);
    let db: TestDatabase;
    let redis: RedisClient;
    const buses: RedisInvalidationBus[] = [];
    let publisher: RedisInvalidationBus;
    let warm: RedirectorServer; // LINK_CACHE_ENTRIES=0: every link read goes to Redis
    const warmRegistry = new Registry();
    let hot: RedirectorServer;

    const config = (entries: number) => ({
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: 0,
      LINK_CACHE_ENTRIES: entries,
      TRUST_PROXY: { kind: 'hops', hops: 0 } as const,
      DEFAULT_SHORT_DOMAIN: 'sho.rt',
    });

    beforeAll(async () => {
      db = await createTestDatabase(inject('embeddedPgUrl'));
      redis = await connectTestRedis(target);
      const bus = () => {
        const b = new RedisInvalidationBus(redis, prefix);
        buses.push(b);
        return b;
      };
      publisher = bus();
      const ports = () => ({
        sql: db.sql,
        bus: bus(),
        cacheTier: new RedisCacheTier(redis, prefix),
        clickCounter: new RedisClickCounterStore(redis, prefix),
        linkClicks: new MemoryLinkClickCounter(),
        rateLimiter: new MemoryRateLimiter(),
        usageStore: new PostgresUsageStore(db.sql),
        hitSink: new MemoryHitSink(),
        usageFlushIntervalMs: 100,
      });
      warm = await createRedirectorServer({ ...ports(), config: config(0), metricsRegistry: warmRegistry });
      hot = await createRedirectorServer({ ...ports(), config: config(1000) });
    });

    afterAll(async () => {
      await warm?.close();
      await hot?.close();
      for (const b of buses) await b.close();
      await deletePrefixOn(redis, prefix);
      redis?.disconnect();
      await db?.drop();
    });

    const linkHits = (s: RedirectorServer, tier: string): number => s.metricsSnapshot()[`redirector_cache_hits_total{kind="link",tier="${tier}"}`] ?? 0;

    it('a miss loads from Postgres and fills Redis; the next read (LRU off) is a Redis hit', async () => {
      const org = await seedOrg(db.sql);
      const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://warm.example/' });
      const pg0 = linkHits(warm, 'postgres');
      expect((await send(warm.port, `/${shortCode}`)).headers.location).toBe('https://warm.example/');
      expect(linkHits(warm, 'postgres')).toBe(pg0 + 1);
      await until(async () => (await redis.exists(entryKey(shortCode))) === 1, 1_000);
      const redis0 = linkHits(warm, 'redis');
      expect((await send(warm.port, `/${shortCode}`)).headers.location).toBe('https://warm.example/');
      expect(linkHits(warm, 'redis')).toBe(redis0 + 1);
      // The other "worker" is filled from Redis, not Postgres.
      const hotPg = linkHits(hot, 'postgres');
      await send(hot.port, `/${shortCode}`);
      expect(linkHits(hot, 'postgres')).toBe(hotPg);
      expect(await redis.pttl(entryKey(shortCode))).toBeLessThanOrEqual(120_000);
    });

    it('Prometheus counts a Redis miss only when the link came from Postgres; every lookup misses the disabled LRU', async () => {
      const org = await seedOrg(db.sql);
      const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://ratio.example/' });
      const misses = async (tier: string): Promise<number> => {
        const { values } = await warmRegistry.getSingleMetric('redirector_cache_misses_total')!.get();
        return values.find((v) => v.labels.kind === 'link' && v.labels.tier === tier)?.value ?? -1;
      };
      const [lru0, redis0] = [await misses('lru'), await misses('redis')];
      expect((await send(warm.port, `/${shortCode}`)).headers.location).toBe('https://ratio.example/');
      expect([await misses('lru'), await misses('redis')]).toEqual([lru0 + 1, redis0 + 1]);
      await until(async () => (await redis.exists(entryKey(shortCode))) === 1, 1_000);
      expect((await send(warm.port, `/${shortCode}`)).headers.location).toBe('https://ratio.example/');
      // Answered by Redis: one more LRU miss, no Redis miss.
      expect([await misses('lru'), await misses('redis')]).toEqual([lru0 + 2, redis0 + 1]);
    });

    it('an invalidation on the Redis bus drops the Redis entry and both workers serve the new value within 1 s', async () => {
      const org = await seedOrg(db.sql);
      const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://before.example/' });
      await send(warm.port, `/${shortCode}`);
      await send(hot.port, `/${shortCode}`);
      await db.sql`update links set url = 'https://after.example/' where short_code = ${shortCode}`;
      const t0 = Date.now();
      await publisher.publish({ kind: 'link', shortCode });
      await until(async () => {
        const [a, b] = await Promise.all([send(warm.port, `/${shortCode}`), send(hot.port, `/${shortCode}`)]);
        return a.headers.location === 'https://after.example/' && b.headers.location === 'https://after.example/';
      }, 1_000);
      expect(Date.now() - t0).toBeLessThan(1_000);
    });

    it('a fill computed before an invalidation is refused (generation guard)', async () => {
      const tier = new RedisCacheTier(redis, `${prefix}race:`);
      const before = await tier.lookup('link', 'racecode');
      expect(before).toEqual({ value: null, generation: '0' });
      // Another worker processes an invalidation while this one reads Postgres…
      await tier.invalidate('link', 'racecode');
      // …so the stale fill must not land.
      expect(await tier.fill('link', 'racecode', before.generation, '{"stale":true}', 60_000)).toBe(false);
      expect((await tier.lookup('link', 'racecode')).value).toBeNull();
      const fresh = await tier.lookup('link', 'racecode');
      expect(await tier.fill('link', 'racecode', fresh.generation, '{"fresh":true}', 60_000)).toBe(true);
      expect((await tier.lookup('link', 'racecode')).value).toBe('{"fresh":true}');
    });

    it('a load in flight when the key is invalidated is not kept (LRU abort + retry)', async () => {
      let version = 'stale';
      let release: (() => void) | null = null;
      const gate = new Promise<void>((r) => (release = r));
      let loads = 0;
      const cache = new TieredCache<{ v: string }>({
        kind: 'link',
        lruEntries: 10,
        lruMaxBytes: 1024 * 1024,
        sizeOf: (v) => 2 * v.v.length,
        lruTtlMs: 60_000,
        negativeLruTtlMs: 1_000,
        redis: new RedisCacheTier(redis, `${prefix}inflight:`),
        redisTtlMs: 60_000,
        negativeRedisTtlMs: 1_000,
        load: async () => {
          loads++;
          const seen = version; // what Postgres said before the commit
          if (loads === 1) await gate;
          return { v: seen };
        },
        revive: (json) => json as { v: string },
        hits: { lru: 0, redis: 0, postgres: 0 },
        onError: (err) => {
          throw err;
        },
      });
      const pending = cache.get('k');
      await until(() => loads === 1);
      version = 'fresh'; // the write commits…
      await cache.invalidate('k'); // …and its invalidation arrives while the old load is in flight
      release!();
      expect(await pending).toEqual({ v: 'fresh' });
      expect(cache.peek('k')).toEqual({ v: 'fresh' });
      await until(async () => (await redis.get(entryKey('k', `${prefix}inflight:`))) !== null, 1_000);
      expect(await redis.get(entryKey('k', `${prefix}inflight:`))).toBe('{"v":"fresh"}');
    });

    it('the FREE click quota holds across workers sharing Redis', async () => {
      const org = await seedOrg(db.sql, 'FREE', 5);
      const { shortCode } = await seedLink(db.sql, { orgId: org });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await send((i % 2 ? warm : hot).port, `/${shortCode}`)).status);
      expect(statuses.filter((s) => s === 302)).toHaveLength(5);
      expect(statuses.slice(5).every((s) => s === 402)).toBe(true);
      await until(async () => {
        const [row] = await db.sql<{ clicks: string }[]>`select clicks from usage_counters where org_id = ${org}`;
        return row?.clicks === '5';
      }, 3_000);
    });
  });
}
