// Invariant: every UsageStore adapter passes this one suite unchanged: a counter reads 0 until
// clicks are added; one add() call with several deltas adds each and answers every counter after
// it; concurrent adds are never lost; organisations and periods are independent.
import { afterAll, describe, expect, it } from 'vitest';
import type { UsageStore } from './usage-store.ts';

export interface UsageStoreFactory {
  make(): Promise<UsageStore>;
  /** An organisation the store may count clicks for (usage rows reference organisations). */
  newOrg(): Promise<string>;
  close(): Promise<void>;
}

const PERIOD = '2026-11-01';

export function usageStoreContract(name: string, factory: UsageStoreFactory): void {
  describe(`UsageStore contract: ${name}`, () => {
    afterAll(async () => factory.close());

    it('reads 0 before any click, then the sum of what was added', async () => {
      const store = await factory.make();
      const org = await factory.newOrg();
      expect(await store.read(org, PERIOD)).toBe(0);
      expect(await store.add([{ orgId: org, periodStart: PERIOD, clicks: 3 }])).toEqual([{ orgId: org, periodStart: PERIOD, clicks: 3 }]);
      expect(await store.add([{ orgId: org, periodStart: PERIOD, clicks: 4 }])).toEqual([{ orgId: org, periodStart: PERIOD, clicks: 7 }]);
      expect(await store.read(org, PERIOD)).toBe(7);
      expect(await store.add([])).toEqual([]);
    });

    it('one add of several deltas answers each counter after it', async () => {
      const store = await factory.make();
      const a = await factory.newOrg();
      const b = await factory.newOrg();
      const totals = await store.add([
        { orgId: a, periodStart: PERIOD, clicks: 2 },
        { orgId: b, periodStart: PERIOD, clicks: 5 },
        { orgId: a, periodStart: '2026-12-01', clicks: 1 },
      ]);
      const byKey = new Map(totals.map((t) => [`${t.orgId}/${t.periodStart}`, t.clicks]));
      expect(byKey).toEqual(
        new Map([
          [`${a}/${PERIOD}`, 2],
          [`${b}/${PERIOD}`, 5],
          [`${a}/2026-12-01`, 1],
        ]),
      );
      expect(await store.read(a, PERIOD)).toBe(2);
      expect(await store.read(a, '2026-12-01')).toBe(1);
    });

    it('concurrent adds from many flushes are never lost', async () => {
      const store = await factory.make();
      const org = await factory.newOrg();
      await Promise.all(Array.from({ length: 40 }, () => store.add([{ orgId: org, periodStart: PERIOD, clicks: 5 }])));
      expect(await store.read(org, PERIOD)).toBe(200);
    });
  });
}
