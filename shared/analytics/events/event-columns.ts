// Invariant: an EventColumns batch holds the same events as an EventRecord[], one array per
// inserted field (INSERTED_FIELDS, keyed like the records: instants as `<name>Micros`), every array
// `rows` long, row i of every array belonging to the same event. It is how the write path carries
// a batch from enrichment to the insert (no object per event); records and columns convert into
// each other without loss (the spool and the backfill keep records).
import type { EventRecord } from './analytics-event.ts';
import { INSERTED_FIELDS, recordKey, type InsertedField, type RecordKey } from './event-schema.ts';

export type InsertedKey = RecordKey<InsertedField>;

/** The record keys of the inserted fields, in table order. */
export const INSERTED_KEYS: readonly InsertedKey[] = INSERTED_FIELDS.map((k) => recordKey(k));

export interface EventColumns {
  rows: number;
  readonly values: Readonly<Record<InsertedKey, (string | null)[]>>;
}

export function emptyEventColumns(): EventColumns {
  return { rows: 0, values: Object.fromEntries(INSERTED_KEYS.map((k) => [k, []])) as unknown as Record<InsertedKey, (string | null)[]> };
}

export function columnsFromRecords(records: readonly EventRecord[]): EventColumns {
  const out = emptyEventColumns();
  for (const k of INSERTED_KEYS) {
    const column = out.values[k];
    for (const r of records) column.push((r as unknown as Readonly<Record<string, string | null>>)[k] ?? null);
  }
  out.rows = records.length;
  return out;
}

export function recordsFromColumns(columns: EventColumns): EventRecord[] {
  const out: EventRecord[] = [];
  for (let i = 0; i < columns.rows; i++) {
    const r: Record<string, string | null> = {};
    for (const k of INSERTED_KEYS) r[k] = columns.values[k][i] ?? null;
    out.push(r as unknown as EventRecord);
  }
  return out;
}
