// Invariant: the backfill worker moves spooled batches into the store, oldest first, each with
// the dedup token it was spooled with, and acknowledges a batch only after its insert succeeded;
// so a batch is inserted at least once and, thanks to the token (and the store's FINAL reads),
// visible exactly once. While the store refuses, it retries with exponential backoff and
// jitter (minBackoffMs doubling up to maxBackoffMs); when the spool is empty it polls slowly, and
// kick() wakes it at once. A drain that lasts (a large spool) shows its progress on a terminal.
// Each look at the spool notes the click time of the oldest event at its head (none once it is
// empty), so the backfill lag is known without reading the spool again.
import { progressLine, type ProgressLine } from '../../process/progress-line.ts';
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventInserter } from './event-inserter.ts';
import type { EventSpool, SpoolEntry } from './event-spool.ts';

export interface BackfillWorkerOptions {
  spool: EventSpool;
  store: EventInserter;
  /** Batches read from the spool per round. Default 10. */
  batchesPerRound?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Poll interval while the spool is empty (ms). Default 5000. */
  idlePollMs?: number;
  onError?: (error: unknown) => void;
  random?: () => number;
  /** Where a long drain reports progress; default: stderr, drawn only when it is a terminal. */
  progress?: ProgressLine;
}

export interface BackfillResult {
  insertedBatches: number;
  insertedEvents: number;
  /** True when a round stopped on a failed insert (the store is still down). */
  failed: boolean;
}

export interface BackfillMetrics {
  insertedBatches: number;
  insertedEvents: number;
  failedAttempts: number;
  currentBackoffMs: number;
  running: boolean;
  /**
   * Click time (ms since the epoch) of the oldest event waiting at the spool's head when this
   * worker last looked; null when the spool was empty then (or has not been looked at yet).
   */
  oldestPendingEventMs: number | null;
}

/** The earliest click time in a spooled batch (ms since the epoch), null for an empty batch. */
function oldestEventMs(entry: SpoolEntry): number | null {
  let oldest = Infinity;
  for (const r of entry.batch.records) {
    const micros = Number(r.createdAtMicros);
    if (micros < oldest) oldest = micros;
  }
  return Number.isFinite(oldest) ? Math.floor(oldest / 1000) : null;
}

export class BackfillWorker {
  private readonly batchesPerRound: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly idlePollMs: number;
  private readonly random: () => number;
  private readonly progress: ProgressLine;
  private backoffMs = 0;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: ((byStop: boolean) => void) | null = null;
  private draining: Promise<BackfillResult> | null = null;
  private readonly m = { insertedBatches: 0, insertedEvents: 0, failedAttempts: 0 };
  private oldestPendingEventMs: number | null = null;

  /** The spool this worker drains. */
  readonly spool: EventSpool;

  constructor(private readonly options: BackfillWorkerOptions) {
    this.spool = options.spool;
    this.batchesPerRound = options.batchesPerRound ?? 10;
    this.minBackoffMs = options.minBackoffMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.idlePollMs = options.idlePollMs ?? 5000;
    this.random = options.random ?? Math.random;
    this.progress = options.progress ?? progressLine();
  }

  /** Inserts spooled batches until the spool is empty or an insert fails. Never throws. */
  drainOnce(): Promise<BackfillResult> {
    // One drain at a time: concurrent callers share it.
    if (!this.draining) {
      this.draining = this.runDrain().finally(() => {
        this.progress.done();
        this.draining = null;
      });
    }
    return this.draining;
  }

  private async runDrain(): Promise<BackfillResult> {
    const result: BackfillResult = { insertedBatches: 0, insertedEvents: 0, failed: false };
    for (;;) {
      let entries: Awaited<ReturnType<EventSpool['peek']>>;
      try {
        entries = await this.options.spool.peek(this.batchesPerRound);
      } catch (err) {
        this.options.onError?.(err);
        return { ...result, failed: true };
      }
      const head = entries[0];
      this.oldestPendingEventMs = head === undefined ? null : oldestEventMs(head);
      if (entries.length === 0) return result;
      for (const [i, entry] of entries.entries()) {
        if (this.stopping) return result;
        try {
          await this.options.store.insert(entry.batch.records, entry.batch.token);
          await this.options.spool.ack(entry.id);
        } catch (err) {
          this.m.failedAttempts++;
          this.options.onError?.(err);
          return { ...result, failed: true };
        }
        result.insertedBatches++;
        result.insertedEvents += entry.batch.records.length;
        this.m.insertedBatches++;
        this.m.insertedEvents += entry.batch.records.length;
        const next = entries[i + 1];
        if (next !== undefined) this.oldestPendingEventMs = oldestEventMs(next);
        this.progress.update(`backfill from ${this.spool.description}: ${result.insertedBatches} batches (${result.insertedEvents} events) moved`);
      }
    }
  }

  /** Runs in the background until stop(). */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = (async () => {
      while (!this.stopping) {
        const r = await this.drainOnce();
        if (this.stopping) break;
        if (r.failed) {
          this.backoffMs = this.backoffMs === 0 ? this.minBackoffMs : Math.min(this.maxBackoffMs, this.backoffMs * 2);
          await this.sleep(this.backoffMs * (0.5 + this.random() / 2), false);
        } else {
          this.backoffMs = 0;
          await this.sleep(this.idlePollMs, true);
        }
      }
    })();
  }

  /** Wakes an idle worker now (e.g. right after a batch was spooled). Does not cut a backoff short. */
  kick(): void {
    this.wake?.(false);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.(true);
    await this.loop;
    this.loop = null;
  }

  metrics(): BackfillMetrics {
    return { ...this.m, currentBackoffMs: this.backoffMs, running: this.loop !== null, oldestPendingEventMs: this.oldestPendingEventMs };
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      // stop() always ends a sleep; kick() only ends an idle one, never a backoff.
      this.wake = (byStop: boolean): void => {
        if (byStop || wakeable) finish();
      };
    });
  }
}
