// Invariant: the write buffer and the backfill worker run against the real chDB store and real
// spool files. A store outage is a real one (the events table is DETACHed, so inserts fail in the
// engine) and is healed with ATTACH; a lost acknowledgement is a real insert whose success is
// then reported as a failure. What is pushed is what is stored, exactly once.
import { NO_EVENT_FILTERS } from '../reads/analytics-params.ts';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openChdbStore } from '../../../test/support/analytics-stores.ts';
import { aggregateCounts, allEqual } from '../../../test/support/aggregate-checks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventBatch } from '../events/event-batch.ts';
import { CHROME_WINDOWS_UA, eventRecords, newOrgId, rawHit, sleep } from '../events/analytics-fixtures.ts';
import { progressLine } from '../../process/progress-line.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import type { RawHit } from '../events/raw-hit.ts';
import { BackfillWorker } from './backfill-worker.ts';
import type { EventInserter } from './event-inserter.ts';
import type { EventSpool, SpooledBatch } from './event-spool.ts';
import { EventWriteBuffer, type EventWriteBufferOptions } from './event-write-buffer.ts';
import { FileSpool } from './file-spool.ts';

const root = mkdtempSync(join(process.cwd(), '.tmp', 'ingest-'));
let store: AnalyticsStore;
const enricher = new HitEnricher();

beforeAll(async () => {
  store = await openChdbStore(join(root, 'chdb'), { syncSettleMillis: 20 });
  await enricher.geo.open();
});

afterAll(async () => {
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

let spoolCount = 0;
const newSpool = (): Promise<FileSpool> => FileSpool.open(join(root, `spool-${++spoolCount}`));

const hits = (orgId: string, n: number): RawHit[] =>
  Array.from({ length: n }, (_, i) => rawHit({ orgId, ip: i % 2 ? '8.8.8.8' : null, userAgent: CHROME_WINDOWS_UA }));

function buffer(spool: EventSpool, options: Partial<EventWriteBufferOptions> = {}): EventWriteBuffer {
  return new EventWriteBuffer({ store, enricher, spool, flushIntervalMs: 60_000, ...options });
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  const deadline = sleep(timeoutMs).then(() => 'late' as const);
  for (;;) {
    const ok = await Promise.race([Promise.resolve(cond()), deadline]);
    if (ok === 'late') throw new Error('condition check did not answer in time');
    if (ok) return;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

const outage = () => store.transport.exec(`DETACH TABLE ${EVENTS_TABLE}`);
const recover = () => store.transport.exec(`ATTACH TABLE ${EVENTS_TABLE}`);

describe('EventWriteBuffer', () => {
  it('flushes full batches on size and keeps the rest for later', async () => {
    const orgId = newOrgId();
    const buf = buffer(await newSpool(), { maxBatch: 50 });
    for (const h of hits(orgId, 120)) buf.push(h);
    await until(() => buf.metrics().flushedEvents === 100);
    expect(buf.metrics()).toMatchObject({ queueDepth: 20, flushedBatches: 2, spooledEvents: 0 });
    expect(buf.metrics().lastFlushLatencyMs).toEqual(expect.any(Number));
    expect(await store.countEvents(orgId)).toBe(100);
    await buf.close();
    expect(await store.countEvents(orgId)).toBe(120);
  });

  it('flushes a partial batch on the timer', async () => {
    const orgId = newOrgId();
    const buf = buffer(await newSpool(), { maxBatch: 1000, flushIntervalMs: 100 });
    for (const h of hits(orgId, 10)) buf.push(h);
    expect(buf.metrics().flushedEvents).toBe(0);
    await until(() => buf.metrics().flushedEvents === 10, 2000);
    expect(await store.countEvents(orgId)).toBe(10);
    await buf.close();
  });

  it('close() (SIGTERM) writes everything queued, then refuses and counts new hits', async () => {
    const orgId = newOrgId();
    const buf = buffer(await newSpool(), { maxBatch: 1000 });
    for (const h of hits(orgId, 2500)) buf.push(h);
    const final = await buf.close();
    expect(final).toMatchObject({ queueDepth: 0, flushedEvents: 2500, droppedEvents: 0, inFlightBatches: 0 });
    expect(await store.countEvents(orgId)).toBe(2500);
    buf.push(rawHit({ orgId }));
    expect(buf.metrics()).toMatchObject({ droppedEvents: 1, droppedByReason: { queue_full: 0, closed: 1, unsaved_at_close: 0 } });
    expect(await buf.close()).toBe(final); // idempotent
  });

  it('stores the enriched event', async () => {
    const orgId = newOrgId();
    const buf = buffer(await newSpool());
    const hit = rawHit({ orgId, ip: '8.8.8.8', userAgent: CHROME_WINDOWS_UA, clickedAtMicros: 1_767_225_600_123_456 });
    buf.push(hit);
    await buf.close();
    const page = await store.browse(orgId, 'UTC', {
      mode: 'browse',
      from: '2026-01-01',
      to: '2026-01-01',
      cursor: null,
      limit: 10,
      filters: NO_EVENT_FILTERS,
    });
    expect(page.data[0]).toMatchObject({
      createdAt: '2026-01-01T00:00:00.123456Z',
      shortUrlId: hit.link.id,
      countryCode: 'US',
      browserName: 'Chrome',
      deviceType: 'DESKTOP',
    });
    // A UUIDv7 minted for the click's millisecond.
    expect(page.data[0]!.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(page.data[0]!.eventId.replace(/-/g, '').slice(0, 12), 16)).toBe(1_767_225_600_123);
  });

  it('bounds memory: beyond maxQueuedEvents, hits are dropped and counted, never thrown', async () => {
    const buf = buffer(await newSpool(), { maxBatch: 1000, maxQueuedEvents: 100 });
    const orgId = newOrgId();
    for (const h of hits(orgId, 150)) buf.push(h);
    expect(buf.metrics()).toMatchObject({ queueDepth: 100, droppedEvents: 50, droppedByReason: { queue_full: 50, closed: 0, unsaved_at_close: 0 } });
    await buf.close();
    expect(await store.countEvents(orgId)).toBe(100);
  });

  it('a store that is up but behind gets the oldest waiting batch spilled to the spool, and nothing is dropped', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    // The real store, answering each insert 500 ms late: 5,000-event batches (one spool entry, one
    // fsync each), one slot, 10,000 events/s at most.
    const slow: EventInserter = {
      insert: (records, token) => store.insert(records, token),
      insertBatch: async (batch, token) => {
        await sleep(500);
        await store.insertBatch(batch, token);
      },
    };
    const buf = new EventWriteBuffer({
      store: slow,
      enricher,
      spool,
      flushIntervalMs: 60_000,
      maxBatch: 5000,
      maxQueuedEvents: 20_000,
      maxConcurrentFlushes: 1,
    });
    const pushed = hits(orgId, 40_000);
    // 250 clicks every 10 ms (25k/s), two and a half times what the store takes.
    for (let i = 0; i < pushed.length; i += 250) {
      for (const h of pushed.slice(i, i + 250)) buf.push(h);
      await sleep(10);
    }
    await buf.flush();
    const m = buf.metrics();
    expect(m.droppedEvents).toBe(0);
    expect(m.spilledEvents).toBeGreaterThan(0);
    expect(m.spilledEvents).toBe(m.spooledEvents);
    expect(m.flushedEvents + m.spooledEvents).toBe(pushed.length);
    const worker = new BackfillWorker({ spool, store, minBackoffMs: 10, maxBackoffMs: 50 });
    expect(await worker.drainOnce()).toMatchObject({ insertedEvents: m.spooledEvents, failed: false });
    expect(await store.countEvents(orgId)).toBe(pushed.length);
    expect(await store.countPhysicalRows(orgId)).toBe(pushed.length);
    await buf.close();
    await spool.close();
  });

  it('keeps the raw facts when enrichment fails, and the events when the visitor step fails', async () => {
    const orgId = newOrgId();
    const errors: string[] = [];
    const buf = buffer(await newSpool(), {
      enricher: {
        enrichDistinct: () => Promise.reject(new Error('mmdb missing')),
        visitorColumn: () => Promise.reject(new Error('no salt')),
      },
      onError: (_e, ctx) => errors.push(ctx),
    });
    buf.push(rawHit({ orgId, ip: '8.8.8.8', referrer: 'https://a.example/' }));
    await buf.close();
    expect(errors).toEqual(['enrich', 'enrich']);
    expect(await store.countEvents(orgId)).toBe(1);
  });
});

describe('store outage → spool → backfill', () => {
  it('a drain reports its progress on a terminal and erases the line when done; on a pipe it writes nothing', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    for (let i = 0; i < 12; i++) await spool.append({ token: randomUUID(), records: eventRecords(orgId, 5, 1_767_225_600_000_000n + BigInt(i)) });
    const terminal = Object.assign(new PassThrough(), { isTTY: true });
    let drawn = '';
    terminal.on('data', (c: Buffer) => (drawn += c.toString()));
    const r = await new BackfillWorker({
      spool,
      store,
      batchesPerRound: 5,
      progress: progressLine({ stream: terminal, delayMs: 0, intervalMs: 0 }),
    }).drainOnce();
    expect(r).toMatchObject({ insertedBatches: 12, insertedEvents: 60, failed: false });
    expect(await store.countEvents(orgId)).toBe(60);
    expect(drawn).toContain(`\rbackfill from ${spool.description}: 1 batches (5 events) moved\x1b[K`);
    expect(drawn).toContain(`\rbackfill from ${spool.description}: 12 batches (60 events) moved\x1b[K`);
    expect(drawn.endsWith('\r\x1b[K')).toBe(true);

    const pipe = Object.assign(new PassThrough(), { isTTY: false });
    let piped = '';
    pipe.on('data', (c: Buffer) => (piped += c.toString()));
    await spool.append({ token: randomUUID(), records: eventRecords(orgId, 5, 1_767_225_700_000_000n) });
    await new BackfillWorker({ spool, store, progress: progressLine({ stream: pipe, delayMs: 0, intervalMs: 0 }) }).drainOnce();
    expect(await store.countEvents(orgId)).toBe(65);
    expect(piped).toBe('');
  });

  it('push stays fast during an outage; spooled batches are backfilled: count before = count after', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    const buf = buffer(spool, { maxBatch: 500, storeCooldownMs: 60_000 });
    const worker = new BackfillWorker({ spool, store, minBackoffMs: 10, maxBackoffMs: 50 });
    const pushed = hits(orgId, 3000);
    await outage();
    try {
      const t0 = process.hrtime.bigint();
      for (const h of pushed) buf.push(h);
      const pushMs = Number(process.hrtime.bigint() - t0) / 1e6;
      expect(pushMs).toBeLessThan(100); // 3000 pushes while the store is down
      await buf.flush();
      const m = buf.metrics();
      expect(m).toMatchObject({ spooledEvents: 3000, flushedEvents: 0, queueDepth: 0, storeAvailable: false });
      expect(m.failedInserts).toBeGreaterThanOrEqual(1);
      expect(m.failedInserts).toBeLessThanOrEqual(2); // then the cooldown sends batches straight to the spool
      expect(await worker.drainOnce()).toMatchObject({ failed: true, insertedEvents: 0 });
      expect(await spool.size()).toBe(6);
    } finally {
      await recover();
    }
    expect(await worker.drainOnce()).toEqual({ insertedBatches: 6, insertedEvents: 3000, failed: false });
    expect(await spool.size()).toBe(0);
    expect(await worker.drainOnce()).toEqual({ insertedBatches: 0, insertedEvents: 0, failed: false });
    expect(await store.countEvents(orgId)).toBe(pushed.length);
    expect(await store.countPhysicalRows(orgId)).toBe(pushed.length);
    expect(await aggregateCounts(store, orgId)).toEqual(allEqual(pushed.length));
    await buf.close();
    await spool.close();
  });

  it('a batch whose insert succeeded but whose answer was lost is backfilled without a duplicate', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    const lostAck: EventInserter = {
      insert: async (records: readonly EventRecord[], token: string) => {
        await store.insert(records, token);
        throw new Error('connection reset after commit');
      },
      insertBatch: async (batch: EventBatch, token: string) => {
        await store.insertBatch(batch, token);
        throw new Error('connection reset after commit');
      },
    };
    const buf = new EventWriteBuffer({ store: lostAck, enricher, spool, maxBatch: 100, flushIntervalMs: 60_000, storeCooldownMs: 0 });
    for (const h of hits(orgId, 250)) buf.push(h);
    await buf.close();
    expect(buf.metrics().spooledEvents).toBe(250);
    expect(await store.countPhysicalRows(orgId)).toBe(250); // already stored once
    const worker = new BackfillWorker({ spool, store });
    expect(await worker.drainOnce()).toMatchObject({ insertedEvents: 250, failed: false });
    expect(await store.countPhysicalRows(orgId)).toBe(250); // the retry was dropped by its token
    expect(await store.countEvents(orgId)).toBe(250);
    expect(await aggregateCounts(store, orgId)).toEqual(allEqual(250));
  });

  it('keeps a batch the spool refused and retries it on the next tick', async () => {
    const orgId = newOrgId();
    const files = await newSpool();
    let refusals = 2;
    const flaky: EventSpool = {
      description: 'flaky',
      append: (b: SpooledBatch) => (refusals-- > 0 ? Promise.reject(new Error('disk full')) : files.append(b)),
      peek: (n) => files.peek(n),
      ack: (id) => files.ack(id),
      size: () => files.size(),
      close: () => files.close(),
    };
    const buf = buffer(flaky, { maxBatch: 100, flushIntervalMs: 30 });
    await outage();
    try {
      for (const h of hits(orgId, 100)) buf.push(h);
      await until(() => buf.metrics().spooledEvents === 100, 5000);
      expect(buf.metrics()).toMatchObject({ failedSpoolWrites: 2, queueDepth: 0, droppedEvents: 0 });
    } finally {
      await recover();
    }
    await new BackfillWorker({ spool: files, store }).drainOnce();
    expect(await store.countEvents(orgId)).toBe(100);
    await buf.close();
  });

  it('the background worker backs off while the store is down and drains once it answers', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    const worker = new BackfillWorker({ spool, store, minBackoffMs: 20, maxBackoffMs: 80, idlePollMs: 60_000 });
    const buf = buffer(spool, { maxBatch: 200, flushIntervalMs: 20, storeCooldownMs: 50, onSpooled: () => worker.kick() });
    worker.start();
    await outage();
    let recovered = false;
    try {
      for (const h of hits(orgId, 1000)) buf.push(h);
      await until(() => buf.metrics().spooledEvents === 1000);
      await until(() => worker.metrics().failedAttempts >= 2);
      expect(worker.metrics().currentBackoffMs).toBeGreaterThanOrEqual(20);
      await recover();
      recovered = true;
      // Hits pushed after recovery go straight in once the cooldown has passed.
      for (const h of hits(orgId, 300)) buf.push(h);
      await until(async () => (await spool.size()) === 0 && buf.metrics().queueDepth === 0);
    } finally {
      if (!recovered) await recover();
    }
    await buf.close();
    await worker.stop(); // also while a drain is running
    expect(worker.metrics().running).toBe(false);
    expect(await store.countEvents(orgId)).toBe(1300);
    expect(await store.countPhysicalRows(orgId)).toBe(1300);
  });
});

describe('BackfillWorker', () => {
  it('kick() wakes an idle worker at once; stop() ends it without waiting for the poll', async () => {
    const orgId = newOrgId();
    const spool = await newSpool();
    const worker = new BackfillWorker({ spool, store, idlePollMs: 60_000 });
    worker.start();
    await sleep(20); // now idle
    const records = await enricher.enrich(hits(orgId, 5));
    await spool.append({ token: 'kick-test-token', records });
    worker.kick();
    await until(async () => (await spool.size()) === 0, 2000);
    expect(await store.countEvents(orgId)).toBe(5);
    const t0 = Date.now();
    await worker.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(worker.metrics()).toMatchObject({ insertedBatches: 1, insertedEvents: 5, running: false });
  });
});
