// Invariant: both counter adapters (Redis on the server and on the run's Redis Cluster) grant at
// most what is left below each link's limit, many links in one call; the admission batches one turn's clicks into one call, hands the grants out in
// asking order, and fails every waiter of a failed call.
import calculateSlot from 'cluster-key-slot';
import { afterAll, describe, expect, it } from 'vitest';
import { isCluster } from '../redis/redis-client.ts';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../test/support/servers.ts';
import { type ClickRequest, LinkClickAdmission, type LinkClickCounter } from './link-click-counter.ts';
import { MemoryLinkClickCounter } from './memory-link-click-counter.ts';
import { RedisLinkClickCounter } from './redis-link-click-counter.ts';

const prefix = redisTestPrefix();
const redisClients = await Promise.all(redisTestTargets().map(async (t) => ({ name: t.name, client: await connectTestRedis(t) })));
afterAll(async () => {
  for (const { client } of redisClients) {
    await deletePrefixOn(client, prefix);
    client.disconnect();
  }
});

const adapters: [string, () => LinkClickCounter][] = [['memory', () => new MemoryLinkClickCounter()]];
for (const { name, client } of redisClients) adapters.push([name, () => new RedisLinkClickCounter(client, `${prefix}${Math.random()}:`)]);

describe.each(adapters)('%s link click counter', (_name, make) => {
  it('grants at most what is left below each limit, for many links in one call', async () => {
    const c = make();
    expect(
      await c.take([
        { linkId: 'a', max: 5, n: 3 },
        { linkId: 'b', max: 2, n: 3 },
        { linkId: 'a', max: 5, n: 3 },
      ]),
    ).toEqual([3, 2, 2]);
    expect(await c.take([{ linkId: 'a', max: 5, n: 1 }])).toEqual([0]);
    expect([await c.count('a'), await c.count('b'), await c.count('c')]).toEqual([5, 2, 0]);
    // A raised limit serves the difference.
    expect(await c.take([{ linkId: 'b', max: 4, n: 5 }])).toEqual([2]);
  });
});

describe('LinkClickAdmission', () => {
  it("batches one turn's clicks into one call and hands the grants out in asking order", async () => {
    const calls: ClickRequest[][] = [];
    const memory = new MemoryLinkClickCounter();
    const counter: LinkClickCounter = {
      take: (r) => {
        calls.push([...r]);
        return memory.take(r);
      },
      count: (id) => memory.count(id),
    };
    const admission = new LinkClickAdmission(counter);
    const answers = await Promise.all([...Array.from({ length: 10 }, () => admission.take('x', 3)), admission.take('y', 100)]);
    expect(answers).toEqual([true, true, true, false, false, false, false, false, false, false, true]);
    expect(calls).toEqual([
      [
        { linkId: 'x', max: 3, n: 10 },
        { linkId: 'y', max: 100, n: 1 },
      ],
    ]);
    expect(await admission.take('x', 3)).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('fails every waiter of a failed call, and the next turn asks again', async () => {
    let fail = true;
    const memory = new MemoryLinkClickCounter();
    const admission = new LinkClickAdmission({ take: (r) => (fail ? Promise.reject(new Error('down')) : memory.take(r)), count: (id) => memory.count(id) });
    const results = await Promise.allSettled([admission.take('x', 1), admission.take('x', 1)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await admission.take('x', 1)).toBe(true);
  });
});

for (const { name, client } of redisClients) {
  describe(`${name}: keys`, () => {
    it("a link's counter and exhausted marker share a hash slot, start with the prefix, and links spread over the slots", () => {
      const c = new RedisLinkClickCounter(client, 'shortlink:');
      expect([c.key('f3c1'), c.markerKey('f3c1')]).toEqual(['shortlink:link-clicks:{f3c1}', 'shortlink:link-clicks:{f3c1}:exhausted']);
      const slots = new Set(Array.from({ length: 100 }, (_, i) => calculateSlot(c.key(`link-${i}`))));
      for (let i = 0; i < 100; i++) expect(calculateSlot(c.markerKey(`link-${i}`))).toBe(calculateSlot(c.key(`link-${i}`)));
      expect(slots.size).toBeGreaterThan(95);
    });
  });
}

describe.runIf(redisClients.some((r) => !isCluster(r.client)))('a counter kept under its name from before hash tags', () => {
  it('is carried over by the first take, so an upgrade loses no click', async () => {
    const single = redisClients.find((r) => !isCluster(r.client))!.client;
    const c = new RedisLinkClickCounter(single, `${prefix}legacy:`);
    await single.set(c.legacyKey('old-link'), '4');
    expect(await c.count('old-link')).toBe(4);
    expect(await c.take([{ linkId: 'old-link', max: 5, n: 3 }])).toEqual([1]);
    expect(await c.count('old-link')).toBe(5);
    expect(await single.exists(c.legacyKey('old-link'))).toBe(0);
  });
});
