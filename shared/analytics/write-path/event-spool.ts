// Invariant: a spool holds enriched batches the store refused, durably (append resolves only once
// the batch would survive a crash), each with the dedup token of its first insert attempt so a
// retry can never duplicate. Batches come back oldest first and stay until acknowledged; an
// acknowledged batch never comes back. One consumer process per spool is the intended use; two
// would only repeat inserts, which the tokens make harmless.
import type { EventRecord } from '../events/analytics-event.ts';

export interface SpooledBatch {
  /** insert_deduplication_token of the batch, fixed when the batch was formed. */
  token: string;
  records: EventRecord[];
}

export interface SpoolEntry {
  /** Opaque id for ack(). */
  id: string;
  batch: SpooledBatch;
}

export interface EventSpool {
  readonly description: string;
  /** Stores a batch durably. */
  append(batch: SpooledBatch): Promise<void>;
  /** Up to `max` unacknowledged batches, oldest first. Repeats them until they are acknowledged. */
  peek(max: number): Promise<SpoolEntry[]>;
  /** Removes a batch after its successful insert. Unknown or repeated ids are ignored. */
  ack(id: string): Promise<void>;
  /** Bytes this object has appended since it was opened (encoded batches), for metrics. */
  readonly appendedBytes?: number;
  /** Number of unacknowledged batches. */
  size(): Promise<number>;
  close(): Promise<void>;
}
