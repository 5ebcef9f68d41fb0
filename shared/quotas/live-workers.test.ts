// Invariant: the fleet's worker registry counts the workers that announced themselves within the
// liveness window (by the Redis server's clock), forgets silent ones and those that left, on the
// machine's Redis and on the run's Redis Cluster; LiveWorkers remembers the last count while the
// registry is unreachable and never answers below its own host's workers.
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../test/support/servers.ts';
import { LiveWorkers, type WorkerRegistry } from './live-workers.ts';
import { RedisWorkerRegistry } from './redis-worker-registry.ts';

for (const target of redisTestTargets()) {
  describe(`RedisWorkerRegistry on ${target.name}`, () => {
    const prefix = redisTestPrefix();
    const redis = connectTestRedis(target);
    afterAll(async () => {
      const c = await redis;
      await deletePrefixOn(c, prefix);
      c.disconnect();
    });

    it('counts the workers heard within the window; a silent or departed one stops counting', async () => {
      const registry = new RedisWorkerRegistry(await redis, prefix);
      expect(await registry.heartbeat('a', 400)).toBe(1);
      expect(await registry.heartbeat('b', 400)).toBe(2);
      expect(await registry.heartbeat('c', 400)).toBe(3);
      await registry.leave('c');
      await new Promise((r) => setTimeout(r, 250));
      expect(await registry.heartbeat('a', 400)).toBe(2); // b is still within the window
      await new Promise((r) => setTimeout(r, 250));
      expect(await registry.heartbeat('a', 400)).toBe(1); // b fell silent 500 ms ago
    });

    it('LiveWorkers of three hosts see the fleet: six workers', async () => {
      const registry = new RedisWorkerRegistry(await redis, `${prefix}fleet:`);
      const workers = Array.from({ length: 6 }, () => new LiveWorkers({ registry, hostWorkers: 2 }));
      for (const w of workers) await w.start();
      await workers[0]?.start(); // a second look, now that all six announced
      expect(workers[0]?.current()).toBe(6);
      for (const w of workers) await w.stop();
    });
  });
}

describe('LiveWorkers', () => {
  it('answers its host’s workers until it has read the registry, then what it last read, also while the registry is down', async () => {
    let up = true;
    let count = 9;
    const registry: WorkerRegistry = {
      heartbeat: async () => {
        if (!up) throw new Error('down');
        return count;
      },
      leave: async () => undefined,
    };
    const errors: unknown[] = [];
    const live = new LiveWorkers({ registry, hostWorkers: 4, onError: (e) => errors.push(e) });
    expect(live.current()).toBe(4);
    await live.start();
    expect(live.current()).toBe(9);
    up = false;
    await live.start();
    expect(live.current()).toBe(9);
    expect(errors).toHaveLength(1);
    up = true;
    count = 1; // fewer than this host's own workers: never below them
    await live.start();
    expect(live.current()).toBe(4);
    await live.stop();
  });
});
