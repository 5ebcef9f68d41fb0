// Invariant: a batch of hits is saved once it is enriched (once per distinct value; a failed
// enrichment keeps the raw facts, a failed visitor step leaves the visitors null) and given a fresh dedup token: it is inserted into the store
// within insertTimeoutMs, or else handed to the spool with that same token, in entries of at most
// SPOOL_ENTRY_EVENTS; a batch neither took is handed back to the caller, which retries it with its
// token. After a failed insert the store is skipped (batches go straight to the spool) until
// storeCooldownMs have passed since that failure, then one batch probes it (Failover), so an
// outage costs one insert timeout per cooldown, not one per batch. Its events are minted with
// the batch and every retry sends the same ones.
import { randomUUID } from 'node:crypto';
import { Failover } from '../../failover/failover.ts';
import { ENRICHMENT_SOURCES, noEnrichment } from '../enrichment/enrich-hit.ts';
import { recordsFromBatch, type EventBatch, type TextColumn } from '../events/event-batch.ts';
import type { DistinctFacts, EnrichedValues, HitBatch, VisitorFacts } from '../events/hit-batch.ts';
import type { EventInserter } from './event-inserter.ts';
import type { EventSpool, SpooledBatch } from './event-spool.ts';

export interface HitEnrichment {
  /** The enriched fields of every distinct User-Agent, address and referrer of a batch. */
  enrichDistinct(facts: DistinctFacts): Promise<EnrichedValues>;
  /** The batch's visitor column. */
  visitorColumn(facts: VisitorFacts): Promise<TextColumn>;
}

/** A batch on its way to the store: its events and the dedup token every retry reuses. */
export interface PendingBatch {
  token: string;
  batch: EventBatch;
}

export interface EventBatchSaverOptions {
  store: EventInserter;
  enricher: HitEnrichment;
  spool: EventSpool;
  /** Give up on an insert after this long and spool the batch (same token). Default 10 000. */
  insertTimeoutMs?: number;
  /** After a failed insert, send batches straight to the spool for this long (ms). Default 5000. */
  storeCooldownMs?: number;
  /** Called after a batch was spooled (e.g. to wake the backfill worker). */
  onSpooled?: () => void;
  /** Failures worth logging; never rethrown. */
  onError?: (error: unknown, context: 'insert' | 'spool' | 'enrich') => void;
  clock?: () => number;
}

export interface SaverMetrics {
  lastFlushLatencyMs: number | null;
  flushedEvents: number;
  flushedBatches: number;
  spooledEvents: number;
  spooledBatches: number;
  failedInserts: number;
  failedSpoolWrites: number;
  /** Of spooledEvents, those spooled because the store was behind (it was up). */
  spilledEvents: number;
}

/**
 * Events per spool entry at most. A spooled batch is one JSON entry (file line, stream entry);
 * splitting a 50 000-event batch keeps each entry near 2.5 MB. The pieces carry tokens derived from the batch's, so in the one case an insert did
 * commit but was reported failed (a lost answer) the backfill stores a second copy of those events,
 * which every read hides (FINAL keeps one row per event) until a merge removes it.
 */
const SPOOL_ENTRY_EVENTS = 5000;

class InsertTimeout extends Error {
  constructor(ms: number) {
    super(`analytics insert did not answer within ${ms} ms`);
  }
}

export class EventBatchSaver {
  readonly #o: EventBatchSaverOptions;
  readonly #insertTimeoutMs: number;
  readonly #clock: () => number;
  readonly #store: Failover;
  readonly #m: SaverMetrics = {
    lastFlushLatencyMs: null,
    flushedEvents: 0,
    flushedBatches: 0,
    spooledEvents: 0,
    spooledBatches: 0,
    failedInserts: 0,
    failedSpoolWrites: 0,
    spilledEvents: 0,
  };

  constructor(options: EventBatchSaverOptions) {
    this.#o = options;
    this.#insertTimeoutMs = options.insertTimeoutMs ?? 10_000;
    this.#clock = options.clock ?? Date.now;
    this.#store = new Failover({ retryPrimaryAfterMs: options.storeCooldownMs ?? 5000, clock: this.#clock });
  }

  metrics(): SaverMetrics {
    return { ...this.#m };
  }

  /** False from a failed insert until an insert succeeds again. */
  get storeAvailable(): boolean {
    return !this.#store.usingFallback;
  }

  /** Enriches the hits and saves them as one batch; the batch when neither store nor spool took it. */
  async saveHits(hits: HitBatch): Promise<PendingBatch | null> {
    return this.save(await this.#pending(hits));
  }

  /** Enriches the hits and spools them without trying the store (it is behind); the batch if the spool refused it. */
  async spillHits(hits: HitBatch): Promise<PendingBatch | null> {
    const batch = await this.#pending(hits);
    try {
      await this.#spool(batch, this.#clock());
      this.#m.spilledEvents += batch.batch.rows;
      return null;
    } catch (err) {
      this.#m.failedSpoolWrites++;
      this.#o.onError?.(err, 'spool');
      return batch;
    }
  }

  async #pending(hits: HitBatch): Promise<PendingBatch> {
    const facts = hits.distinctFacts();
    let enriched: EnrichedValues;
    try {
      enriched = await this.#o.enricher.enrichDistinct(facts);
    } catch (err) {
      this.#o.onError?.(err, 'enrich');
      enriched = noEnrichment(facts); // the raw facts only: nothing is lost
    }
    let visitors: TextColumn | undefined;
    try {
      visitors = await this.#o.enricher.visitorColumn(hits.visitorFacts());
    } catch (err) {
      this.#o.onError?.(err, 'enrich'); // no visitors for this batch; its events are kept
    }
    return { token: randomUUID(), batch: hits.toEventBatch(enriched, ENRICHMENT_SOURCES, visitors) };
  }

  /** Inserts the batch, or spools it (as records) with the same token; the batch when neither took it. */
  async save(batch: PendingBatch): Promise<PendingBatch | null> {
    const started = this.#clock();
    try {
      await this.#store.run(
        () => this.#insert(batch, started),
        () => this.#spool(batch, started),
      );
      return null;
    } catch (err) {
      this.#m.failedSpoolWrites++;
      this.#o.onError?.(err, 'spool');
      return batch;
    }
  }

  async #insert(batch: PendingBatch, started: number): Promise<void> {
    try {
      await this.#insertWithTimeout(batch);
    } catch (err) {
      this.#m.failedInserts++;
      this.#o.onError?.(err, 'insert');
      throw err;
    }
    this.#m.flushedEvents += batch.batch.rows;
    this.#m.flushedBatches++;
    this.#m.lastFlushLatencyMs = this.#clock() - started;
  }

  async #spool(batch: PendingBatch, started: number): Promise<void> {
    // A large batch goes to the spool in entries of at most SPOOL_ENTRY_EVENTS, one per turn, so
    // no single JSON entry stalls the loop; each entry's token is derived from the batch's, so
    // spooling the batch again after a failure repeats the same entries (dropped by their tokens).
    const events = batch.batch.rows;
    const pieces = Math.ceil(events / SPOOL_ENTRY_EVENTS);
    for (let i = 0; i < pieces; i++) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const entry: SpooledBatch = {
        token: pieces === 1 ? batch.token : `${batch.token}-${i}`,
        records: recordsFromBatch(batch.batch, i * SPOOL_ENTRY_EVENTS, Math.min(events, (i + 1) * SPOOL_ENTRY_EVENTS)),
      };
      await this.#o.spool.append(entry);
    }
    this.#m.spooledEvents += events;
    this.#m.spooledBatches += pieces;
    this.#m.lastFlushLatencyMs = this.#clock() - started;
    this.#o.onSpooled?.();
  }

  #insertWithTimeout(batch: PendingBatch): Promise<void> {
    const ms = this.#insertTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new InsertTimeout(ms)), ms);
      this.#o.store.insertBatch(batch.batch, batch.token).then(
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
