// Invariant: push() is O(1), never blocks, never throws, and never waits on the store: hits are
// queued in memory and written in batches (on size, on a timer, and on close()). Every batch is
// enriched, given a fresh dedup token, and then either inserted or, if the insert fails or times
// out, handed to the spool with that same token; a batch the spool also refuses is kept and
// retried, so an event is lost only when the queue bound (maxQueuedEvents) is exceeded, when it
// is pushed after close(), or when neither store nor spool takes it during close(); each such
// loss is counted in droppedEvents. After a failed insert the store is skipped for a cooldown (batches go straight
// to the spool), so an outage costs no insert timeouts per batch. close() returns once every
// queued hit is inserted or spooled. Hits are queued in HitBatches (each fact an index into the
// batch's distinct values, no object per click); a batch is enriched once per distinct value and
// becomes an EventBatch without a copy, with its event ids minted once (so every retry sends the
// same events); only a batch that goes to the spool is turned into records.
import { randomUUID } from 'node:crypto';
import { recordsFromBatch, type EventBatch } from '../events/event-batch.ts';
import { HitBatch, type DistinctFacts, type EnrichedValues } from '../events/hit-batch.ts';
import type { HitSink, HitSinkMetrics, RawHit } from '../events/raw-hit.ts';
import { ENRICHMENT_SOURCES, noEnrichment } from '../enrichment/enrich-hit.ts';
import type { EventInserter } from './event-inserter.ts';
import type { EventSpool, SpooledBatch } from './event-spool.ts';

export interface HitEnrichment {
  /** The enriched fields of every distinct User-Agent, address and referrer of a batch. */
  enrichDistinct(facts: DistinctFacts): Promise<EnrichedValues>;
}

/** A batch on its way to the store: its events and the dedup token every retry reuses. */
interface PendingBatch {
  token: string;
  batch: EventBatch;
}

export interface EventWriteBufferOptions {
  store: EventInserter;
  enricher: HitEnrichment;
  spool: EventSpool;
  /**
   * Events per insert. Default 50 000: every insert is a new part the engine merges later, so
   * fewer, larger inserts cost less engine CPU per event (measured with `npm start` pinned to one
   * core at ≈ 30k clicks/s: background merges took 5.5 µs per event with 5000-event batches,
   * 3.1 µs with 20 000 and 2.3 µs with 50 000). Below that rate the timer flushes first, so a
   * batch never waits longer than flushIntervalMs either way.
   */
  maxBatch?: number;
  /** Flush whatever is queued at least this often (ms). Default 1000. */
  flushIntervalMs?: number;
  /** Hits held in memory at most (queued + unsaved batches); beyond, new hits are dropped and counted. Default 200 000. */
  maxQueuedEvents?: number;
  /** Approximate bytes of queued hits at most (fixed part plus their text); beyond, new hits are dropped. Default 64 MiB. */
  maxQueuedBytes?: number;
  /** Give up on an insert after this long and spool the batch (same token). Default 10 000. */
  insertTimeoutMs?: number;
  /** After a failed insert, send batches straight to the spool for this long (ms). Default 5000. */
  storeCooldownMs?: number;
  /** Batches written concurrently. Default 2. */
  maxConcurrentFlushes?: number;
  /** Called for every hit dropped (queue bound reached, or closed): the caller counts and logs. */
  onDrop?: () => void;
  /** Called after a batch was spooled (e.g. to wake the backfill worker). */
  onSpooled?: () => void;
  /** Failures worth logging; never rethrown. */
  onError?: (error: unknown, context: 'insert' | 'spool' | 'enrich') => void;
  clock?: () => number;
}

export interface WriteBufferMetrics extends HitSinkMetrics {
  inFlightBatches: number;
  flushedEvents: number;
  flushedBatches: number;
  spooledEvents: number;
  spooledBatches: number;
  failedInserts: number;
  failedSpoolWrites: number;
  droppedEvents: number;
  /** droppedEvents by cause: the memory bound was reached, a hit came after close(), or close() could neither insert nor spool it. */
  droppedByReason: Record<DropReason, number>;
  storeAvailable: boolean;
}

export type DropReason = 'queue_full' | 'closed' | 'unsaved_at_close';

/** The most bytes a queued hit can add (its rows, and its text should every value be new). */
const HIT_BYTES_AT_MOST = (hit: RawHit): number => 256 + 2 * ((hit.userAgent?.length ?? 0) + (hit.referrer?.length ?? 0) + (hit.ip?.length ?? 0));

/**
 * Events per spool entry at most. A spooled batch is one JSON entry (file line, stream entry);
 * splitting a 50 000-event batch keeps each entry near 2.5 MB, as with the former 5000-event
 * batches. The pieces carry tokens derived from the batch's, so in the one case an insert did
 * commit but was reported failed (a lost answer) the backfill stores a second copy of those events,
 * which every read hides (FINAL keeps one row per event) until a merge removes it.
 */
const SPOOL_ENTRY_EVENTS = 5000;

class InsertTimeout extends Error {
  constructor(ms: number) {
    super(`analytics insert did not answer within ${ms} ms`);
  }
}

export class EventWriteBuffer implements HitSink {
  /** The batch hits are queued in; full batches wait in `sealed` for a flush slot. */
  private queue = new HitBatch();
  private sealed: HitBatch[] = [];
  private queuedBytes = 0;
  /** Enriched batches neither inserted nor spooled yet (spool failed); retried first. */
  private unsaved: PendingBatch[] = [];
  /** Rows in `sealed` and in `unsaved`, kept as counts so push() checks the bound in O(1). */
  private sealedRows = 0;
  private unsavedRows = 0;
  private inFlight = new Set<Promise<void>>();
  private inFlightEvents = 0;
  private timer: NodeJS.Timeout | null;
  private drainScheduled = false;
  private closing: Promise<WriteBufferMetrics> | null = null;
  private storeDownUntil = 0;
  private readonly m = {
    lastFlushLatencyMs: null as number | null,
    flushedEvents: 0,
    flushedBatches: 0,
    spooledEvents: 0,
    spooledBatches: 0,
    failedInserts: 0,
    failedSpoolWrites: 0,
    droppedEvents: 0,
  };
  private readonly dropped: Record<DropReason, number> = { queue_full: 0, closed: 0, unsaved_at_close: 0 };
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly insertTimeoutMs: number;
  private readonly cooldownMs: number;
  private readonly maxConcurrent: number;
  private readonly clock: () => number;

  constructor(private readonly options: EventWriteBufferOptions) {
    this.maxBatch = options.maxBatch ?? 50_000;
    this.maxQueued = options.maxQueuedEvents ?? 200_000;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
    this.insertTimeoutMs = options.insertTimeoutMs ?? 10_000;
    this.cooldownMs = options.storeCooldownMs ?? 5000;
    this.maxConcurrent = options.maxConcurrentFlushes ?? 2;
    this.clock = options.clock ?? Date.now;
    this.timer = setInterval(() => this.drain(true, true), options.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  push(hit: RawHit): void {
    if (this.closing !== null || this.heldEvents() >= this.maxQueued || this.queuedBytes + HIT_BYTES_AT_MOST(hit) > this.maxQueuedBytes) {
      this.m.droppedEvents++;
      this.dropped[this.closing === null ? 'queue_full' : 'closed']++;
      this.options.onDrop?.();
      return;
    }
    this.queuedBytes += this.queue.push(hit);
    if (this.queue.rows >= this.maxBatch) {
      this.sealed.push(this.queue);
      this.sealedRows += this.queue.rows;
      this.queue = new HitBatch();
      if (!this.drainScheduled) {
        this.drainScheduled = true;
        setImmediate(() => {
          this.drainScheduled = false;
          this.drain(false, false);
        });
      }
    }
  }

  /** Writes everything queued now; resolves when those batches are inserted or spooled. */
  async flush(): Promise<void> {
    this.drain(true, true);
    while (this.inFlight.size > 0) {
      await Promise.allSettled([...this.inFlight]);
      this.drain(true, false);
    }
  }

  /** Stops the timer, refuses new hits, and writes (or spools) everything held. Idempotent. */
  close(): Promise<WriteBufferMetrics> {
    if (!this.closing) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      this.closing = (async () => {
        // A spool that keeps failing would loop forever; give it a bounded number of rounds.
        for (let round = 0; round < 5; round++) {
          await this.flush();
          if (this.queue.rows === 0 && this.sealed.length === 0 && this.unsaved.length === 0) break;
          await new Promise((r) => setTimeout(r, 100 * (round + 1)));
        }
        const lost = this.queue.rows + this.sealedRows + this.unsavedRows;
        this.m.droppedEvents += lost;
        this.dropped.unsaved_at_close += lost;
        this.queue = new HitBatch();
        this.sealed = [];
        this.sealedRows = 0;
        this.queuedBytes = 0;
        this.unsaved = [];
        this.unsavedRows = 0;
        return this.metrics();
      })();
    }
    return this.closing;
  }

  metrics(): WriteBufferMetrics {
    return {
      queueDepth: this.heldEvents(),
      inFlightBatches: this.inFlight.size,
      ...this.m,
      droppedByReason: { ...this.dropped },
      storeAvailable: this.clock() >= this.storeDownUntil,
    };
  }

  private heldEvents(): number {
    return this.queue.rows + this.sealedRows + this.inFlightEvents + this.unsavedRows;
  }

  /**
   * Starts batch writes up to the concurrency limit. `all` also takes a final partial batch;
   * `retryUnsaved` retries batches the spool refused (only on the timer, flush and close, so a
   * failing spool is not hammered).
   */
  private drain(all: boolean, retryUnsaved: boolean): void {
    const retries = retryUnsaved ? this.unsaved.splice(0) : [];
    for (const r of retries) this.unsavedRows -= r.batch.rows;
    while (this.inFlight.size < this.maxConcurrent) {
      const retry = retries.shift();
      if (retry) {
        this.start(retry.batch.rows, () => this.save(retry));
        continue;
      }
      let hits = this.sealed.shift();
      if (hits !== undefined) this.sealedRows -= hits.rows;
      else {
        if (!all || this.queue.rows === 0) break;
        hits = this.queue;
        this.queue = new HitBatch();
      }
      this.queuedBytes -= hits.bytes;
      const taken = hits;
      this.start(taken.rows, () => this.writeHits(taken));
    }
    // Retries beyond the concurrency limit wait for the next round.
    if (retries.length > 0) {
      this.unsaved.unshift(...retries);
      for (const r of retries) this.unsavedRows += r.batch.rows;
    }
  }

  private start(events: number, work: () => Promise<void>): void {
    this.inFlightEvents += events;
    const p: Promise<void> = work()
      .catch((err: unknown) => this.options.onError?.(err, 'insert'))
      .finally(() => {
        this.inFlightEvents -= events;
        this.inFlight.delete(p);
        if (this.sealed.length > 0) this.drain(false, false);
      });
    this.inFlight.add(p);
  }

  private async writeHits(hits: HitBatch): Promise<void> {
    const facts = hits.distinctFacts();
    let enriched: EnrichedValues;
    try {
      enriched = await this.options.enricher.enrichDistinct(facts);
    } catch (err) {
      this.options.onError?.(err, 'enrich');
      enriched = noEnrichment(facts); // the raw facts only: nothing is lost
    }
    await this.save({ token: randomUUID(), batch: hits.toEventBatch(enriched, ENRICHMENT_SOURCES) });
  }

  /** Inserts the batch, or spools it (as records) with the same token, or keeps it for a later retry. */
  private async save(batch: PendingBatch): Promise<void> {
    const started = this.clock();
    const events = batch.batch.rows;
    if (started >= this.storeDownUntil) {
      try {
        await this.insertWithTimeout(batch);
        this.m.flushedEvents += events;
        this.m.flushedBatches++;
        this.m.lastFlushLatencyMs = this.clock() - started;
        return;
      } catch (err) {
        this.m.failedInserts++;
        this.storeDownUntil = this.clock() + this.cooldownMs;
        this.options.onError?.(err, 'insert');
      }
    }
    try {
      // A large batch goes to the spool in entries of at most SPOOL_ENTRY_EVENTS, one per turn, so
      // no single JSON entry stalls the loop; each entry's token is derived from the batch's, so
      // spooling the batch again after a failure repeats the same entries (dropped by their tokens).
      const pieces = Math.ceil(events / SPOOL_ENTRY_EVENTS);
      for (let i = 0; i < pieces; i++) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const entry: SpooledBatch = {
          token: pieces === 1 ? batch.token : `${batch.token}-${i}`,
          records: recordsFromBatch(batch.batch, i * SPOOL_ENTRY_EVENTS, Math.min(events, (i + 1) * SPOOL_ENTRY_EVENTS)),
        };
        await this.options.spool.append(entry);
      }
      this.m.spooledEvents += events;
      this.m.spooledBatches += pieces;
      this.m.lastFlushLatencyMs = this.clock() - started;
      this.options.onSpooled?.();
    } catch (err) {
      this.m.failedSpoolWrites++;
      this.options.onError?.(err, 'spool');
      this.unsaved.push(batch);
      this.unsavedRows += batch.batch.rows;
    }
  }

  private insertWithTimeout(batch: PendingBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new InsertTimeout(this.insertTimeoutMs)), this.insertTimeoutMs);
      this.options.store.insertBatch(batch.batch, batch.token).then(
        () => {
          clearTimeout(t);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(t);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}
