// Invariant: the transactional outbox passes this one suite on every Postgres it runs on: what a
// writer commits is published (at least once, and once when nothing fails), what it rolls back
// never is, a failed publish or purge keeps the row for the next round, a purge runs before the
// publish, concurrent relays share the rows, and stale undeliverable rows are pruned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../db/database.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler } from './invalidation-bus.ts';
import { enqueueInvalidations } from './invalidation-outbox.ts';
import { MemoryInvalidationBus } from './memory-invalidation-bus.ts';
import { OutboxRelay } from './outbox-relay.ts';

export interface OutboxHarness {
  /** A migrated database of its own. */
  sql: Sql;
  cleanup(): Promise<void>;
}

/** A bus whose publish fails while `down` is set (a Redis outage, as the relay sees it). */
class FlakyBus implements InvalidationBus {
  down = false;
  readonly inner = new MemoryInvalidationBus();
  async publish(message: Invalidation): Promise<void> {
    if (this.down) throw new Error('bus down');
    await this.inner.publish(message);
  }
  subscribe(handler: InvalidationHandler): Promise<() => Promise<void>> {
    return this.inner.subscribe(handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const codesOf = (ms: readonly Invalidation[]): string[] => ms.flatMap((m) => (m.kind === 'link' ? [m.shortCode] : []));

export function invalidationOutboxContract(name: string, make: () => Promise<OutboxHarness>): void {
  describe(`invalidation outbox (${name})`, () => {
    let h: OutboxHarness;
    beforeAll(async () => {
      h = await make();
    });
    afterAll(async () => h?.cleanup());

    const queued = async (): Promise<number> => Number((await h.sql<{ n: string }[]>`select count(*) as n from invalidation_outbox`)[0]?.n);

    it('publishes what a writer commits, in commit order, and never what it rolls back', async () => {
      const bus = new FlakyBus();
      const got: Invalidation[] = [];
      await bus.subscribe((m) => got.push(m));
      const relay = new OutboxRelay({ sql: h.sql, bus });
      await relay.start();
      try {
        await h.sql.begin((tx) =>
          enqueueInvalidations(tx, [
            { kind: 'link', shortCode: 'commit-1' },
            { kind: 'link', shortCode: 'commit-2' },
          ]),
        );
        await h.sql
          .begin(async (tx) => {
            await enqueueInvalidations(tx, [{ kind: 'link', shortCode: 'rolled-back' }]);
            throw new Error('abort');
          })
          .catch(() => undefined);
        await h.sql.begin((tx) => enqueueInvalidations(tx, [{ kind: 'org', orgId: 'org-3' }]));
        const deadline = Date.now() + 1_000;
        while (got.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(got).toEqual([
          { kind: 'link', shortCode: 'commit-1' },
          { kind: 'link', shortCode: 'commit-2' },
          { kind: 'org', orgId: 'org-3' },
        ]);
        // A row is published inside the round's transaction; its delete is visible once that commits.
        await relay.flush();
        expect(await queued()).toBe(0);
      } finally {
        await relay.stop();
      }
    });

    it('keeps rows while the bus refuses them and publishes them once it accepts again', async () => {
      const bus = new FlakyBus();
      const got: Invalidation[] = [];
      await bus.subscribe((m) => got.push(m));
      const relay = new OutboxRelay({ sql: h.sql, bus, pollIntervalMs: 50 });
      bus.down = true;
      await relay.start();
      try {
        await h.sql.begin((tx) => enqueueInvalidations(tx, [{ kind: 'link', shortCode: 'during-outage' }]));
        await relay.flush();
        expect(got).toEqual([]);
        expect(await queued()).toBe(1);
        expect(relay.metrics().failedRounds).toBeGreaterThan(0);
        bus.down = false;
        const deadline = Date.now() + 1_000;
        while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(codesOf(got)).toEqual(['during-outage']);
        // The relay deletes the row right after publishing it: wait for that commit, boundedly.
        while ((await queued()) > 0 && Date.now() < deadline + 1_000) await new Promise((r) => setTimeout(r, 10));
        expect(await queued()).toBe(0);
      } finally {
        await relay.stop();
      }
    });

    it('purges what a batch names before publishing it, and keeps the rows while the purge fails', async () => {
      const bus = new FlakyBus();
      const events: string[] = [];
      await bus.subscribe((m) => events.push(`published ${codesOf([m]).join()}`));
      let purgeDown = true;
      const purge = async (messages: readonly Invalidation[]): Promise<void> => {
        if (purgeDown) throw new Error('cache down');
        events.push(`purged ${codesOf(messages).join()}`);
      };
      const relay = new OutboxRelay({ sql: h.sql, bus, purge, pollIntervalMs: 50 });
      await relay.start();
      try {
        await h.sql.begin((tx) =>
          enqueueInvalidations(tx, [
            { kind: 'link', shortCode: 'purge-1' },
            { kind: 'link', shortCode: 'purge-2' },
          ]),
        );
        await relay.flush();
        expect(events).toEqual([]);
        expect(await queued()).toBe(2);
        purgeDown = false;
        const deadline = Date.now() + 1_000;
        while (events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(events).toEqual(['purged purge-1,purge-2', 'published purge-1', 'published purge-2']);
        while ((await queued()) > 0 && Date.now() < deadline + 1_000) await new Promise((r) => setTimeout(r, 10));
        expect(await queued()).toBe(0);
      } finally {
        await relay.stop();
      }
    });

    it('concurrent relays publish every row exactly once between them when nothing fails', async () => {
      const bus = new FlakyBus();
      const got: Invalidation[] = [];
      await bus.subscribe((m) => got.push(m));
      const relays = [1, 2, 3].map(() => new OutboxRelay({ sql: h.sql, bus, batchSize: 7 }));
      const codes = Array.from({ length: 300 }, (_, i) => `many-${i}`);
      for (let i = 0; i < codes.length; i += 30) {
        await h.sql.begin((tx) =>
          enqueueInvalidations(
            tx,
            codes.slice(i, i + 30).map((shortCode) => ({ kind: 'link' as const, shortCode })),
          ),
        );
      }
      await Promise.all(relays.map((r) => r.start()));
      try {
        const deadline = Date.now() + 5_000;
        while (got.length < codes.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        await Promise.all(relays.map((r) => r.flush()));
        expect(codesOf(got).sort()).toEqual([...codes].sort());
        expect(await queued()).toBe(0);
      } finally {
        await Promise.all(relays.map((r) => r.stop()));
      }
    });

    it('prunes rows older than the cache TTLs while the bus stays down', async () => {
      const bus = new FlakyBus();
      bus.down = true;
      await h.sql.begin((tx) =>
        enqueueInvalidations(tx, [
          { kind: 'link', shortCode: 'ancient' },
          { kind: 'link', shortCode: 'recent' },
        ]),
      );
      await h.sql`update invalidation_outbox set created_at = now() - interval '1 hour' where message like '%ancient%'`;
      const relay = new OutboxRelay({ sql: h.sql, bus, maxAgeMs: 600_000 });
      await relay.start();
      try {
        await relay.flush();
        expect(relay.metrics().pruned).toBe(1);
        const left = await h.sql<{ message: string }[]>`select message from invalidation_outbox`;
        expect(left.map((r) => r.message)).toEqual([JSON.stringify({ kind: 'link', shortCode: 'recent' })]);
      } finally {
        await relay.stop();
        await h.sql`delete from invalidation_outbox`;
      }
    });
  });
}
