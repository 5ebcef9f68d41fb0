// Invariant: a batch the store refused is never lost while either spool takes it: append() goes
// to the primary (the shared Redis stream) and, when that fails, to the fallback (a file spool on
// this host's disk under DATA_DIR). After a primary failure, appends go straight to the fallback
// for a cooldown, so an outage costs one command timeout per cooldown, not one per batch. Reads
// (peek/ack/size) are the fallback's: the process that owns the disk spool backfills it; the
// shared stream has its own backfill worker (ingest).
import { Failover } from '../../failover/failover.ts';
import type { EventSpool, SpoolEntry, SpooledBatch } from './event-spool.ts';

export interface FallbackSpoolOptions {
  primary: EventSpool;
  fallback: EventSpool;
  /** After a primary failure, use the fallback for this long (ms). Default 2000. */
  cooldownMs?: number;
  /** Told when batches start going to the fallback, and when the primary takes them again. */
  onSwitch?: (usingFallback: boolean, cause?: unknown) => void;
  clock?: () => number;
}

export class FallbackSpool implements EventSpool {
  readonly description: string;
  readonly #o: FallbackSpoolOptions;
  readonly #failover: Failover;

  constructor(options: FallbackSpoolOptions) {
    this.#o = options;
    this.description = `${options.primary.description}, else ${options.fallback.description}`;
    this.#failover = new Failover({ retryPrimaryAfterMs: options.cooldownMs ?? 2_000, onSwitch: options.onSwitch, clock: options.clock });
  }

  get appendedBytes(): number {
    return (this.#o.primary.appendedBytes ?? 0) + (this.#o.fallback.appendedBytes ?? 0);
  }

  append(batch: SpooledBatch): Promise<void> {
    return this.#failover.run(
      () => this.#o.primary.append(batch),
      () => this.#o.fallback.append(batch),
    );
  }

  peek(max: number): Promise<SpoolEntry[]> {
    return this.#o.fallback.peek(max);
  }

  ack(id: string): Promise<void> {
    return this.#o.fallback.ack(id);
  }

  size(): Promise<number> {
    return this.#o.fallback.size();
  }

  async close(): Promise<void> {
    await this.#o.primary.close();
    await this.#o.fallback.close();
  }
}
