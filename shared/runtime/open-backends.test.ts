// Invariant: the composition root alone turns the server URLs into ports, and the processes'
// pipelines built on them lose nothing:
// - no REDIS_URL / CLICKHOUSE_URL: chDB and a file spool under DATA_DIR, Postgres bus, memory
//   limiter and counters; hits pushed before close() are readable after reopening DATA_DIR;
// - all URLs (Redis a server or a Cluster): the HTTP store and the Redis stream spool; a pipeline
//   started while ClickHouse is down spools and catches up once it answers;
// - a production entry point without the server URLs is a ConfigError naming them; both Redis
//   settings at once is one line naming both; a transaction pooler gets no prepared statement
//   and no LISTEN;
// - the bus (Postgres or Redis) reports its problems (a malformed message) to the process log.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { openHttpStore } from '../../test/support/analytics-stores.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newOrgId, rawHit, sleep } from '../analytics/events/analytics-fixtures.ts';
import type { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import { createAnalyticsPipeline } from '../analytics/write-path/analytics-pipeline.ts';
import { PostgresInvalidationBus } from '../bus/postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from '../bus/redis-invalidation-bus.ts';
import { commonSchema, ConfigError } from '../config/config.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import { InsuredRateLimiter } from '../limits/insured-rate-limiter.ts';
import { MemoryClickCounterStore } from '../quotas/memory-click-counter-store.ts';
import { RedisClickCounterStore } from '../quotas/redis-click-counter-store.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../../test/support/fake-clickhouse-http.ts';
import { connectTestRedis, deletePrefixOn, deleteTestPrefix, redisTestTargets } from '../../test/support/redis-targets.ts';
import { createTestDatabase, redisTestPrefix, type TestDatabase } from '../../test/support/servers.ts';
import { lineLogger } from '../../test/support/memory-logger.ts';
import { openBackends } from './open-backends.ts';
import { SetupError } from './startup.ts';
import { removeTestDir } from '../../test/support/test-dirs.ts';

let db: TestDatabase;
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'backends-'));

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
});
afterAll(async () => {
  await db?.drop();
  removeTestDir(dir);
});

describe('openBackends without Redis and ClickHouse (embedded analytics)', () => {
  it('chDB + file spool under DATA_DIR; close() loses nothing; data survives a reopen', async () => {
    const config = commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url, ANALYTICS_SYNC_SETTLE_MS: '10' });
    const logs: string[] = [];
    const first = await openBackends(config);
    expect(first.bus).toBeInstanceOf(PostgresInvalidationBus);
    expect(first.rateLimiter).toBeInstanceOf(MemoryRateLimiter);
    expect(first.clickCounter).toBeInstanceOf(MemoryClickCounterStore);
    expect(first.cacheTier).toBeNull();
    expect(first.workerRegistry).toBeNull();
    const analytics = await first.analytics();
    expect(await first.analytics()).toBe(analytics); // opened once
    expect(analytics.store.transport.description).toBe(`chdb:${join(dir, 'analytics')}`);
    expect(analytics.spool.description).toBe(`file-spool:${join(dir, 'analytics-spool')}`);
    const pipeline = createAnalyticsPipeline({ ...analytics, backfill: [analytics.spool], logger: lineLogger(logs) });
    const orgId = newOrgId();
    for (let i = 0; i < 1234; i++) pipeline.sink.push(rawHit({ orgId, ip: '8.8.8.8' }));
    await pipeline.close();
    await first.close();

    const second = await openBackends(config);
    const again = await second.analytics();
    const reopened = createAnalyticsPipeline({ ...again, backfill: [again.spool], logger: lineLogger(logs) });
    expect(await reopened.store.countEvents(orgId)).toBe(1234);
    await reopened.close();
    await second.close();
    expect(logs.filter((l) => l.startsWith('store '))).toHaveLength(2);
  });

  it('a production entry point without the server URLs is a ConfigError naming each', async () => {
    const config = commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url });
    const err = await openBackends(config, { requireServersFor: 'start:ingest' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('start:ingest needs REDIS_URL (or REDIS_CLUSTER_NODES), CLICKHOUSE_URL');
  });

  it('REDIS_URL and REDIS_CLUSTER_NODES both set: one SetupError line naming both, before anything opens', async () => {
    const config = commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: '127.0.0.1:2' });
    const err = await openBackends(config, { requireServersFor: 'start:api' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect((err as Error).message).toMatch(/^REDIS_URL and REDIS_CLUSTER_NODES are both set; [^\n]+$/);
  });

  it('DATABASE_POOLER=transaction: nothing LISTENs through DATABASE_URL; DATABASE_DIRECT_URL gets a connection of its own that may', async () => {
    const pooled = await openBackends(commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url, DATABASE_POOLER: 'transaction' }));
    expect(pooled.db.listenSql).toBeNull();
    expect(pooled.db.sql.options.prepare).toBe(false);
    await pooled.close();
    const direct = await openBackends(commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: db.url }));
    expect(direct.db.listenSql).not.toBeNull();
    expect(direct.db.listenSql).not.toBe(direct.db.sql);
    await direct.close();
    const plain = await openBackends(commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url }));
    expect(plain.db.listenSql).toBe(plain.db.sql);
    expect(plain.db.sql.options.prepare).toBe(true);
    await plain.close();
  });
});

describe('the invalidation bus reports to the process log', () => {
  const malformed = async (backends: Awaited<ReturnType<typeof openBackends>>, logs: string[], publish: () => Promise<unknown>): Promise<void> => {
    const stop = await backends.bus.subscribe(() => {});
    try {
      const deadline = Date.now() + 5_000;
      await publish();
      while (!logs.some((l) => l.startsWith('invalidation bus: ignored malformed invalidation')) && Date.now() < deadline) await sleep(20);
      expect(logs.filter((l) => l.startsWith('invalidation bus: ignored malformed invalidation'))).toHaveLength(1);
    } finally {
      await stop();
      await backends.close();
    }
  };

  it('Postgres bus: a malformed NOTIFY is a log line', async () => {
    const logs: string[] = [];
    const backends = await openBackends(commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url }), { logger: lineLogger(logs) });
    expect(backends.bus).toBeInstanceOf(PostgresInvalidationBus);
    const channel = (backends.bus as PostgresInvalidationBus).channel;
    await malformed(backends, logs, () => db.sql`select pg_notify(${channel}, 'not json')`);
  });

  for (const target of redisTestTargets()) {
    it(`Redis bus (${target.name}): a malformed entry on the stream is a log line`, async () => {
      const prefix = redisTestPrefix();
      const logs: string[] = [];
      const backends = await openBackends(commonSchema.parse({ DATA_DIR: dir, DATABASE_URL: db.url, REDIS_PREFIX: prefix, ...target.env }), {
        logger: lineLogger(logs),
      });
      expect(backends.bus).toBeInstanceOf(RedisInvalidationBus);
      const publisher = await connectTestRedis(target);
      try {
        await malformed(backends, logs, () => publisher.xadd((backends.bus as RedisInvalidationBus).channel, '*', 'm', 'not json'));
      } finally {
        await deletePrefixOn(publisher, prefix);
        publisher.disconnect();
      }
    });
  }
});

for (const target of redisTestTargets())
  describe(`openBackends with every server URL (production, ${target.name})`, () => {
    const prefix = redisTestPrefix();
    let server: FakeClickHouse;
    let store: AnalyticsStore;

    beforeAll(async () => {
      server = await startFakeClickHouse(join(dir, 'fake-ch'));
      store = await openHttpStore(server.url, { requestTimeoutMs: 3000, syncSettleMillis: 20 });
    });
    afterAll(async () => {
      await store?.close();
      await server?.close();
      await deleteTestPrefix(target, prefix);
    });

    it('Redis ports; the pipeline starts while ClickHouse is down, spools, and catches up once it answers', async () => {
      const orgId = newOrgId();
      await server.stop();
      const logs: string[] = [];
      const config = commonSchema.parse({
        DATA_DIR: dir,
        DATABASE_URL: db.url,
        CLICKHOUSE_URL: server.url,
        REDIS_PREFIX: `${prefix}late-start:`,
        ...target.env,
      });
      const backends = await openBackends(config, { requireServersFor: 'test', logger: lineLogger(logs) });
      expect(backends.bus).toBeInstanceOf(RedisInvalidationBus);
      expect(backends.rateLimiter).toBeInstanceOf(InsuredRateLimiter); // Redis, insured by memory
      expect(backends.clickCounter).toBeInstanceOf(RedisClickCounterStore);
      expect(backends.cacheTier).not.toBeNull();
      expect(backends.workerRegistry).not.toBeNull();
      const analytics = await backends.analytics();
      const pipeline = createAnalyticsPipeline({
        ...analytics,
        backfill: [analytics.spool, analytics.sharedSpool!],
        logger: lineLogger(logs),
        buffer: { flushIntervalMs: 20, storeCooldownMs: 100 },
      });
      let restarted = false;
      try {
        for (let i = 0; i < 300; i++) pipeline.sink.push(rawHit({ orgId }));
        await pipeline.sink.flush();
        expect(pipeline.sink.metrics().spooledEvents).toBe(300);
        expect(logs.some((l) => l.includes('schema not ensured yet'))).toBe(true);
        const shared = analytics.sharedSpool!;
        expect(await shared.size()).toBeGreaterThan(0); // Redis took them: nothing on this host's disk
        expect(await analytics.spool.size()).toBe(0);
        await server.start();
        restarted = true;
        const end = Date.now() + 25_000;
        while ((await shared.size()) > 0 && Date.now() < end) await sleep(50);
        expect(await shared.size()).toBe(0);
      } finally {
        if (!restarted) await server.start();
        await pipeline.close();
        await backends.close();
      }
      expect(await store.countEvents(orgId)).toBe(300);
    }, 40_000);
  });
