// Invariant: the ingest side writes events only through this port: one call inserts one batch
// atomically, and calling it again with the same token and records never duplicates an event.
// AnalyticsStore implements it.
import type { EventRecord } from '../events/analytics-event.ts';

export interface EventInserter {
  insert(records: readonly EventRecord[], dedupToken: string): Promise<void>;
}
