// Invariant: every SharedCacheTier adapter passes this one suite unchanged: a miss reads null; a
// fill is read back (absence encoded too); an invalidation deletes the entry and refuses every
// fill based on a generation read before it, while a fill based on the new generation lands;
// entries expire after their TTL; kinds and ids are independent.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ABSENT_ENCODING, type SharedCacheTier } from './shared-cache-tier.ts';

export interface SharedCacheTierFactory {
  make(): SharedCacheTier;
  close?(): Promise<void>;
}

const TTL_MS = 60_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function sharedCacheTierContract(name: string, factory: SharedCacheTierFactory): void {
  describe(`SharedCacheTier contract: ${name}`, () => {
    afterAll(async () => factory.close?.());

    it('a miss reads null; a fill (value or absence) is read back', async () => {
      const tier = factory.make();
      const id = randomUUID();
      const miss = await tier.lookup('link', id);
      expect(miss.value).toBeNull();
      expect(await tier.fill('link', id, miss.generation, '{"a":1}', TTL_MS)).toBe(true);
      expect((await tier.lookup('link', id)).value).toBe('{"a":1}');
      const other = randomUUID();
      const g = (await tier.lookup('org', other)).generation;
      expect(await tier.fill('org', other, g, ABSENT_ENCODING, TTL_MS)).toBe(true);
      expect((await tier.lookup('org', other)).value).toBe(ABSENT_ENCODING);
      expect((await tier.lookup('link', other)).value).toBeNull(); // kinds are independent
    });

    it('an invalidation deletes the entry and refuses fills read before it', async () => {
      const tier = factory.make();
      const id = randomUUID();
      const before = (await tier.lookup('link', id)).generation;
      await tier.fill('link', id, before, 'old', TTL_MS);
      await tier.invalidate('link', id);
      const after = await tier.lookup('link', id);
      expect(after.value).toBeNull();
      expect(after.generation).not.toBe(before);
      expect(await tier.fill('link', id, before, 'stale', TTL_MS)).toBe(false);
      expect((await tier.lookup('link', id)).value).toBeNull();
      expect(await tier.fill('link', id, after.generation, 'new', TTL_MS)).toBe(true);
      expect((await tier.lookup('link', id)).value).toBe('new');
    });

    it('an entry expires after its TTL', async () => {
      const tier = factory.make();
      const id = randomUUID();
      await tier.fill('link', id, (await tier.lookup('link', id)).generation, 'brief', 50);
      expect((await tier.lookup('link', id)).value).toBe('brief');
      await sleep(120);
      expect((await tier.lookup('link', id)).value).toBeNull();
    });

    it('lookups issued together each get their own answer', async () => {
      const tier = factory.make();
      const ids = Array.from({ length: 20 }, () => randomUUID());
      for (const [i, id] of ids.entries()) if (i % 2 === 0) await tier.fill('link', id, '0', `v${i}`, TTL_MS);
      const got = await Promise.all(ids.map((id) => tier.lookup('link', id)));
      expect(got.map((l) => l.value)).toEqual(ids.map((_, i) => (i % 2 === 0 ? `v${i}` : null)));
    });
  });
}
