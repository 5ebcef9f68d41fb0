// Invariant: the production wiring (store over HTTP via @clickhouse/client, spool in a Redis
// stream) survives a real outage: the ClickHouse endpoint stops listening (connection refused),
// hits keep being accepted, go to the real Redis stream, and the backfill worker puts every one
// of them in the store exactly once when the endpoint listens again. Skipped without Redis.
import { NO_EVENT_FILTERS } from '../reads/analytics-params.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openHttpStore } from '../../../test/support/analytics-stores.ts';
import { aggregateCounts, allEqual } from '../../../test/support/aggregate-checks.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHROME_WINDOWS_UA, newOrgId, rawHit, sleep } from '../events/analytics-fixtures.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import { parseInstantMicros } from '../../time/instant.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../../../test/support/fake-clickhouse-http.ts';
import { deleteRedisPrefix, redisTestPrefix } from '../../../test/support/servers.ts';
import { BackfillWorker } from './backfill-worker.ts';
import { EventWriteBuffer } from './event-write-buffer.ts';
import { RedisStreamSpool } from './redis-stream-spool.ts';

const redisUrl = inject('realRedisUrl');

describe.skipIf(!redisUrl)('production ingest: HTTP ClickHouse + Redis stream spool', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'ingest-prod-'));
  const prefix = redisTestPrefix();
  let server: FakeClickHouse;
  let store: AnalyticsStore;

  beforeAll(async () => {
    server = await startFakeClickHouse(dir);
    store = await openHttpStore(server.url, { requestTimeoutMs: 3000, syncSettleMillis: 20 });
  });

  afterAll(async () => {
    await store?.close();
    await server?.close();
    await deleteRedisPrefix(redisUrl ?? '', prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('outage → Redis spool → backfill: count before = count after, no duplicates, sync sees each once', async () => {
    const orgId = newOrgId();
    const spool = new RedisStreamSpool({ prefix, redis: redisUrl ?? '' });
    const worker = new BackfillWorker({ spool, store, minBackoffMs: 20, maxBackoffMs: 100, idlePollMs: 60_000 });
    const buf = new EventWriteBuffer({
      store,
      enricher: new HitEnricher(),
      spool,
      maxBatch: 250,
      flushIntervalMs: 25,
      storeCooldownMs: 100,
      onSpooled: () => worker.kick(),
    });
    worker.start();
    const pushed = Array.from({ length: 1500 }, () => rawHit({ orgId, userAgent: CHROME_WINDOWS_UA, ip: '8.8.8.8' }));
    for (const h of pushed.slice(0, 500)) buf.push(h);
    await buf.flush();
    expect(buf.metrics().flushedEvents).toBe(500);

    await server.stop();
    let restarted = false;
    try {
      const t0 = performance.now();
      for (const h of pushed.slice(500)) buf.push(h);
      expect(performance.now() - t0).toBeLessThan(50);
      const end = Date.now() + 15_000;
      while (buf.metrics().spooledEvents < 1000 && Date.now() < end) await sleep(20);
      expect(buf.metrics().spooledEvents).toBe(1000);
      expect(await spool.size()).toBe(4);
      await server.start();
      restarted = true;
    } finally {
      if (!restarted) await server.start();
    }
    const end = Date.now() + 15_000;
    while ((await spool.size()) > 0 && Date.now() < end) await sleep(20);
    expect(await spool.size()).toBe(0);
    await buf.close();
    await worker.stop();
    expect(await store.countEvents(orgId)).toBe(1500);
    expect(await store.countPhysicalRows(orgId)).toBe(1500);
    expect(await aggregateCounts(store, orgId)).toEqual(allEqual(1500));

    await sleep(50);
    const seen = new Set<string>();
    let since = '2000-01-01T00:00:00Z';
    let after: string | null = null;
    for (;;) {
      const q = {
        mode: 'sync' as const,
        sinceMicros: parseInstantMicros(since) ?? 0n,
        afterEventId: after,
        limit: 400,
        filters: NO_EVENT_FILTERS,
      };
      const page = await store.sync(orgId, q);
      for (const e of page.data) {
        expect(seen.has(e.eventId)).toBe(false);
        seen.add(e.eventId);
      }
      since = page.nextSince ?? since;
      after = page.afterEventId;
      if (!page.hasMore) break;
    }
    expect(seen.size).toBe(1500);
    await spool.close();
  });
});
