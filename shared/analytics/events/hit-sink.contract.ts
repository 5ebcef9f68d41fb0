// Invariant: every HitSink adapter passes this one suite unchanged: push() returns at once (never
// a promise, never a throw) however many hits arrive; once the adapter settles, every pushed hit
// is delivered exactly once; metrics() reports nothing queued once settled.
import { afterAll, describe, expect, it } from 'vitest';
import { newOrgId, rawHit } from './analytics-fixtures.ts';
import type { HitSink } from './raw-hit.ts';

export interface HitSinkFactory<S extends HitSink> {
  make(): S | Promise<S>;
  /** Waits until everything pushed so far is delivered (stored, for a writing sink). */
  settle(sink: S): Promise<void>;
  /** Hits of `orgId` delivered so far. */
  delivered(sink: S, orgId: string): Promise<number>;
  close?(): Promise<void>;
}

export function hitSinkContract<S extends HitSink>(name: string, factory: HitSinkFactory<S>): void {
  describe(`HitSink contract: ${name}`, () => {
    afterAll(async () => factory.close?.());

    it('push returns synchronously and every hit is delivered exactly once', async () => {
      const sink = await factory.make();
      const orgId = newOrgId();
      for (let i = 0; i < 2_500; i++) expect(sink.push(rawHit({ orgId, ip: '8.8.8.8' }))).toBeUndefined();
      await factory.settle(sink);
      expect(await factory.delivered(sink, orgId)).toBe(2_500);
      await factory.settle(sink);
      expect(await factory.delivered(sink, orgId)).toBe(2_500);
    });

    it('metrics report nothing queued once settled, and a sane flush latency', async () => {
      const sink = await factory.make();
      sink.push(rawHit({ orgId: newOrgId() }));
      await factory.settle(sink);
      const m = sink.metrics();
      expect(m.queueDepth).toBe(0);
      expect(m.lastFlushLatencyMs === null || m.lastFlushLatencyMs >= 0).toBe(true);
    });
  });
}
