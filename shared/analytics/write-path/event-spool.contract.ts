// Invariant: every EventSpool adapter passes this one suite unchanged against its real medium
// (files, a Redis server): durable append, oldest-first peek that repeats until ack, ack that
// removes for good, and batches that survive a reopen byte for byte.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventRecords, newOrgId } from '../events/analytics-fixtures.ts';
import type { EventSpool, SpooledBatch } from './event-spool.ts';

export interface SpoolUnderTest {
  spool: EventSpool;
  /** Closes `spool` and opens the same medium again, as a restarted process would. */
  reopen(): Promise<EventSpool>;
}

const batch = (n: number, overrides: { referrer?: string | null } = {}): SpooledBatch => ({
  token: randomUUID(),
  records: eventRecords(newOrgId(), n, 1_767_225_600_000_000n, 1n, overrides),
});

export function eventSpoolContract(name: string, make: () => Promise<SpoolUnderTest>): void {
  describe(`EventSpool contract on ${name}`, () => {
    it('starts empty', async () => {
      const { spool } = await make();
      expect(await spool.peek(10)).toEqual([]);
      expect(await spool.size()).toBe(0);
      await spool.close();
    });

    it('peeks oldest first, repeats until ack, and forgets acknowledged batches', async () => {
      const { spool } = await make();
      const batches = [batch(2), batch(3), batch(1)];
      for (const b of batches) await spool.append(b);
      expect(await spool.size()).toBe(3);
      const first = await spool.peek(10);
      expect(first.map((e) => e.batch)).toEqual(batches);
      expect((await spool.peek(10)).map((e) => e.id)).toEqual(first.map((e) => e.id));
      expect((await spool.peek(2)).map((e) => e.batch.token)).toEqual([batches[0]?.token, batches[1]?.token]);
      await spool.ack(first[1]?.id ?? '');
      await spool.ack(first[1]?.id ?? ''); // repeated ack: no effect
      await spool.ack('no-such-id');
      expect((await spool.peek(10)).map((e) => e.batch.token)).toEqual([batches[0]?.token, batches[2]?.token]);
      expect(await spool.size()).toBe(2);
      for (const e of await spool.peek(10)) await spool.ack(e.id);
      expect(await spool.peek(10)).toEqual([]);
      expect(await spool.size()).toBe(0);
      await spool.close();
    });

    it('keeps batches appended after a peek behind the earlier ones', async () => {
      const { spool } = await make();
      const [a, b, c] = [batch(1), batch(1), batch(1)];
      await spool.append(a);
      const seen = await spool.peek(10);
      await spool.append(b);
      await spool.ack(seen[0]?.id ?? '');
      await spool.append(c);
      expect((await spool.peek(10)).map((e) => e.batch.token)).toEqual([b.token, c.token]);
      await spool.close();
    });

    it('keeps every batch of concurrent appends', async () => {
      const { spool } = await make();
      const batches = Array.from({ length: 25 }, () => batch(3));
      await Promise.all(batches.map((b) => spool.append(b)));
      const got = await spool.peek(100);
      expect(got.map((e) => e.batch.token).sort()).toEqual(batches.map((b) => b.token).sort());
      await spool.close();
    });

    it('survives a reopen with tokens, records and nulls intact, including a 1000-event batch', async () => {
      const made = await make();
      const big = batch(1000, { referrer: 'https://example.com/ü?a="b",c\nd' });
      const small = batch(1);
      await made.spool.append(big);
      await made.spool.append(small);
      const ackedBefore = (await made.spool.peek(1))[0];
      const reopened = await made.reopen();
      const got = await reopened.peek(10);
      expect(got.map((e) => e.batch)).toEqual([big, small]);
      expect(got[0]?.batch.records[999]?.country).toBeNull();
      expect(ackedBefore?.batch.token).toBe(big.token);
      for (const e of got) await reopened.ack(e.id);
      expect(await reopened.size()).toBe(0);
      await reopened.close();
    });
  });
}
