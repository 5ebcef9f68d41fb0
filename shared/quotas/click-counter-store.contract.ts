// Invariant: every ClickCounterStore adapter passes this one suite unchanged: lease() raises a
// counter to its floor and grants at most `limit - counter`, atomically under concurrency; add()
// accumulates (negative deltas return unused leases, never below zero) and can pass the limit;
// counters of different organisations and periods are independent. Each test uses fresh ids.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClickCounterStore } from './click-counter-store.ts';

export interface ClickCounterStoreFactory {
  make(): ClickCounterStore | Promise<ClickCounterStore>;
  close?(): Promise<void>;
}

const PERIOD = '2026-11-01';

export function clickCounterStoreContract(name: string, factory: ClickCounterStoreFactory): void {
  describe(`ClickCounterStore contract: ${name}`, () => {
    afterAll(async () => factory.close?.());

    it('lease grants what is asked while under the limit, then only the rest, then nothing', async () => {
      const store = await factory.make();
      const org = randomUUID();
      expect(await store.lease(org, PERIOD, 0, 4, 10)).toEqual({ granted: 4, total: 4 });
      expect(await store.lease(org, PERIOD, 0, 4, 10)).toEqual({ granted: 4, total: 8 });
      expect(await store.lease(org, PERIOD, 0, 4, 10)).toEqual({ granted: 2, total: 10 });
      expect(await store.lease(org, PERIOD, 0, 4, 10)).toEqual({ granted: 0, total: 10 });
    });

    it('lease raises a lost counter to the durable floor before granting', async () => {
      const store = await factory.make();
      const org = randomUUID();
      expect(await store.lease(org, PERIOD, 7, 5, 10)).toEqual({ granted: 3, total: 10 });
      // A floor below the counter changes nothing.
      expect(await store.lease(org, PERIOD, 2, 5, 20)).toEqual({ granted: 5, total: 15 });
    });

    it('concurrent leases never grant more than the limit between them', async () => {
      const store = await factory.make();
      const org = randomUUID();
      const leases = await Promise.all(Array.from({ length: 50 }, () => store.lease(org, PERIOD, 0, 3, 37)));
      expect(leases.reduce((n, l) => n + l.granted, 0)).toBe(37);
      expect(Math.max(...leases.map((l) => l.total))).toBe(37);
    });

    it('add accumulates past the limit, returns unused leases, and never goes below zero', async () => {
      const store = await factory.make();
      const a = randomUUID();
      const b = randomUUID();
      expect(
        await store.add([
          { orgId: a, periodStart: PERIOD, delta: 5 },
          { orgId: b, periodStart: PERIOD, delta: 2 },
        ]),
      ).toEqual([5, 2]);
      expect(await store.add([{ orgId: a, periodStart: PERIOD, delta: -3 }])).toEqual([2]);
      expect(await store.add([{ orgId: b, periodStart: PERIOD, delta: -9 }])).toEqual([0]);
      expect(await store.lease(a, PERIOD, 0, 100, 10)).toEqual({ granted: 8, total: 10 });
      expect(await store.add([{ orgId: a, periodStart: PERIOD, delta: 4 }])).toEqual([14]);
      expect(await store.add([])).toEqual([]);
    });

    it('counters of other organisations and periods are independent', async () => {
      const store = await factory.make();
      const org = randomUUID();
      await store.lease(org, PERIOD, 0, 10, 10);
      expect(await store.lease(org, '2026-12-01', 0, 3, 10)).toEqual({ granted: 3, total: 3 });
      expect(await store.lease(randomUUID(), PERIOD, 0, 3, 10)).toEqual({ granted: 3, total: 3 });
    });
  });
}
