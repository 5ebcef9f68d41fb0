// Invariant: push() is O(1), never blocks, never throws, and never waits on the store: hits are
// queued in memory, in HitBatches (each fact an index into the batch's distinct values, no
// object per click), sealed at maxBatch rows and handed to the EventBatchSaver (which enriches,
// inserts or spools them) on size, on a timer and on close(), at most maxConcurrentFlushes at a
// time. A batch the saver could neither insert nor spool is kept with its token and retried (on
// the timer, flush and close only, so a failing spool is not hammered). A store that answers but
// slower than hits come (every flush slot busy, half the memory bound held) gets the oldest
// waiting batch spilled to the spool, one at a time, for the backfill to insert later. So an
// event is lost only when the memory bound (maxQueuedEvents, maxQueuedBytes) is exceeded even so,
// when it is pushed after close(), or when it is still unsaved when close() gives up; each loss is
// counted in droppedEvents by reason. close() returns once every queued hit is inserted or spooled.
import { HitBatch } from '../events/hit-batch.ts';
import type { HitSink, HitSinkMetrics, RawHit } from '../events/raw-hit.ts';
import { EventBatchSaver, type EventBatchSaverOptions, type PendingBatch } from './event-batch-saver.ts';

export type { HitEnrichment } from './event-batch-saver.ts';

export interface EventWriteBufferOptions extends EventBatchSaverOptions {
  /**
   * Events per insert. Default 50 000: every insert is a new part the engine merges later, so
   * fewer, larger inserts cost less engine CPU per event. Below that rate the timer flushes
   * first, so a batch never waits longer than flushIntervalMs either way.
   */
  maxBatch?: number;
  /** Flush whatever is queued at least this often (ms). Default 1000. */
  flushIntervalMs?: number;
  /** Hits held in memory at most (queued + unsaved batches); beyond, new hits are dropped and counted. Default 200 000. */
  maxQueuedEvents?: number;
  /** Approximate bytes of queued hits at most (fixed part plus their text); beyond, new hits are dropped. Default 64 MiB. */
  maxQueuedBytes?: number;
  /** Batches written concurrently. Default 2. */
  maxConcurrentFlushes?: number;
  /** Called for every hit dropped (queue bound reached, or closed): the caller counts and logs. */
  onDrop?: () => void;
}

export interface WriteBufferMetrics extends HitSinkMetrics {
  inFlightBatches: number;
  flushedEvents: number;
  flushedBatches: number;
  spooledEvents: number;
  spooledBatches: number;
  /** Of spooledEvents, those spilled because the store was behind. */
  spilledEvents: number;
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
  /** A waiting batch on its way straight to the spool (at most one); it takes no flush slot. */
  private spilling = false;
  private timer: NodeJS.Timeout | null;
  private drainScheduled = false;
  private closing: Promise<WriteBufferMetrics> | null = null;
  private droppedEvents = 0;
  private readonly dropped: Record<DropReason, number> = { queue_full: 0, closed: 0, unsaved_at_close: 0 };
  private readonly saver: EventBatchSaver;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly maxConcurrent: number;

  constructor(private readonly options: EventWriteBufferOptions) {
    this.saver = new EventBatchSaver(options);
    this.maxBatch = options.maxBatch ?? 50_000;
    this.maxQueued = options.maxQueuedEvents ?? 200_000;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
    this.maxConcurrent = options.maxConcurrentFlushes ?? 2;
    this.timer = setInterval(() => this.drain(true, true), options.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  push(hit: RawHit): void {
    if (this.closing !== null || this.heldEvents() >= this.maxQueued || this.queuedBytes + HIT_BYTES_AT_MOST(hit) > this.maxQueuedBytes) {
      this.droppedEvents++;
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
        this.droppedEvents += lost;
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
      ...this.saver.metrics(),
      droppedEvents: this.droppedEvents,
      droppedByReason: { ...this.dropped },
      storeAvailable: this.saver.storeAvailable,
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
    while (this.inFlight.size - (this.spilling ? 1 : 0) < this.maxConcurrent) {
      const retry = retries.shift();
      if (retry) {
        this.start(retry.batch.rows, () => this.saver.save(retry));
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
      this.start(taken.rows, () => this.saver.saveHits(taken));
    }
    // Retries beyond the concurrency limit wait for the next round.
    if (retries.length > 0) {
      this.unsaved.unshift(...retries);
      for (const r of retries) this.unsavedRows += r.batch.rows;
    }
    this.spillIfBehind();
  }

  /** Every slot busy and half the bound held: the oldest waiting batch goes to the spool now. */
  private spillIfBehind(): void {
    if (this.spilling || this.closing !== null || this.heldEvents() * 2 < this.maxQueued) return;
    const hits = this.sealed.shift();
    if (hits === undefined) return;
    this.sealedRows -= hits.rows;
    this.queuedBytes -= hits.bytes;
    this.spilling = true;
    this.start(
      hits.rows,
      () => this.saver.spillHits(hits),
      () => {
        this.spilling = false;
      },
    );
  }

  /** Runs one save in a flush slot; a batch it hands back (neither store nor spool took it) waits for a retry. */
  private start(events: number, work: () => Promise<PendingBatch | null>, done?: () => void): void {
    this.inFlightEvents += events;
    const p: Promise<void> = work()
      .then((unsaved) => {
        if (unsaved === null) return;
        this.unsaved.push(unsaved);
        this.unsavedRows += unsaved.batch.rows;
      })
      .catch((err: unknown) => this.options.onError?.(err, 'insert'))
      .finally(() => {
        this.inFlightEvents -= events;
        this.inFlight.delete(p);
        done?.();
        if (this.sealed.length > 0) this.drain(false, false);
      });
    this.inFlight.add(p);
  }
}
