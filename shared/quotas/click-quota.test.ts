// Invariant: the click quota is exercised on real storage only: usage_counters in a migrated test
// database and the counter store in memory (embedded) or on the machine's Redis (skipped when it
// does not answer). Several ClickQuota instances sharing one store stand for several workers.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { createTestDatabase, redisTestPrefix, type TestDatabase } from '../../test/support/servers.ts';
import type { Organization } from '../orgs/organization.ts';
import { organizationOf } from '../../test/support/model-fixtures.ts';
import { billingPeriod } from './billing-period.ts';
import type { ClickCounterStore } from './click-counter-store.ts';
import { MemoryClickCounterStore } from './memory-click-counter-store.ts';
import { RedisClickCounterStore } from './redis-click-counter-store.ts';
import { ClickQuota } from './click-quota.ts';
import { seedOrg } from '../../test/support/seed.ts';
import { PostgresUsageStore, type UsageStore } from './usage-store.ts';

let db: TestDatabase;
let usage: UsageStore;
const prefix = redisTestPrefix();
const redisClients = await Promise.all(redisTestTargets().map(async (t) => ({ name: t.name, client: await connectTestRedis(t) })));

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  usage = new PostgresUsageStore(db.sql);
});

afterAll(async () => {
  for (const { client } of redisClients) {
    await deletePrefixOn(client, prefix);
    client.disconnect();
  }
  await db?.drop();
});

const stores: { name: string; make: () => ClickCounterStore | null }[] = [
  { name: 'memory store', make: () => new MemoryClickCounterStore() },
  ...redisClients.map(({ name, client }) => ({ name: `redis store (${name})`, make: () => new RedisClickCounterStore(client, prefix) })),
];

async function admit(q: ClickQuota, org: Organization): Promise<boolean> {
  await q.whenAdmissible(org, Date.now());
  // As the server does: admit and record in one synchronous block.
  const v = q.admit(org, Date.now());
  if (v.allowed) q.record(org, Date.now());
  return v.allowed;
}

const usageOf = async (orgId: string): Promise<number> => usage.read(orgId, billingPeriod(Date.now()).periodStart);

for (const { name, make } of stores) {
  describe(name, () => {
    it('four workers sharing the store admit exactly the FREE limit under concurrent load', async (ctx) => {
      const store = make();
      if (!store) return ctx.skip();
      const orgId = await seedOrg(db.sql, 'FREE', 37);
      const org = organizationOf(orgId, 'FREE', 37);
      const workers = Array.from({ length: 4 }, () => new ClickQuota({ store, usage, flushIntervalMs: 60_000 }));
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => admit(workers[i % 4]!, org)));
      expect(results.filter(Boolean)).toHaveLength(37);
      // Later attempts stay refused on every worker.
      for (const w of workers) expect(await admit(w, org)).toBe(false);
      await Promise.all(workers.map((w) => w.close()));
      expect(await usageOf(orgId)).toBe(37);
    });

    it('an idle worker hands its unused lease back, so another worker can use the rest', async (ctx) => {
      const store = make();
      if (!store) return ctx.skip();
      const orgId = await seedOrg(db.sql, 'FREE', 100);
      const org = organizationOf(orgId, 'FREE', 100);
      const a = new ClickQuota({ store, usage, flushIntervalMs: 60_000 });
      const b = new ClickQuota({ store, usage, flushIntervalMs: 60_000 });
      expect(await admit(a, org)).toBe(true); // a leases a block, uses one click
      await a.flush(); // active during this interval: keeps its lease
      await a.flush(); // idle for a whole interval: returns it
      let admitted = 0;
      while (await admit(b, org)) admitted++;
      expect(admitted).toBe(99);
      await Promise.all([a.close(), b.close()]);
      expect(await usageOf(orgId)).toBe(100);
    });

    it('paid plans are never blocked and every click is counted', async (ctx) => {
      const store = make();
      if (!store) return ctx.skip();
      const orgId = await seedOrg(db.sql, 'BUSINESS', 3);
      const org = organizationOf(orgId, 'BUSINESS', 3);
      const q = new ClickQuota({ store, usage, flushIntervalMs: 60_000 });
      for (let i = 0; i < 10; i++) expect(q.admit(org, Date.now())).toEqual({ allowed: true });
      for (let i = 0; i < 10; i++) q.record(org, Date.now());
      expect(q.pendingClicks).toBe(10);
      await q.close();
      expect(q.pendingClicks).toBe(0);
      expect(await usageOf(orgId)).toBe(10);
    });

    it('a store that lost its counter is re-seeded from usage_counters', async (ctx) => {
      const store = make();
      if (!store) return ctx.skip();
      const orgId = await seedOrg(db.sql, 'FREE', 10);
      await usage.add([{ orgId, periodStart: billingPeriod(Date.now()).periodStart, clicks: 8 }]);
      const org = organizationOf(orgId, 'FREE', 10);
      const q = new ClickQuota({ store, usage, flushIntervalMs: 60_000 });
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await admit(q, org));
      expect(results).toEqual([true, true, false, false, false]);
      const exhausted = q.admit(org, Date.now());
      expect(exhausted).toMatchObject({ allowed: false, currentClicks: 10, clicksLimit: 10, plan: 'FREE' });
      await q.close();
    });
  });
}
