// Invariant: the ingest side writes events only through this port: one call inserts one batch
// atomically, and calling it again with the same token and events never duplicates an event.
// A batch comes as records (the spool's form, the backfill) or as an EventBatch (the write
// buffer's form); both reach the store as the same Native blocks. AnalyticsStore implements it.
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventBatch } from '../events/event-batch.ts';

export interface EventInserter {
  insert(records: readonly EventRecord[], dedupToken: string): Promise<void>;
  insertBatch(batch: EventBatch, dedupToken: string): Promise<void>;
}
