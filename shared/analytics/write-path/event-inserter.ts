// Invariant: the ingest side writes events only through this port: one call inserts one batch
// atomically, and calling it again with the same token and events never duplicates an event.
// A batch comes as records (the spool's form, the backfill) or as columns (the write buffer's
// form); both reach the store as the same Native block. AnalyticsStore implements it.
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventColumns } from '../events/event-columns.ts';

export interface EventInserter {
  insert(records: readonly EventRecord[], dedupToken: string): Promise<void>;
  insertColumns(batch: EventColumns, dedupToken: string): Promise<void>;
}
