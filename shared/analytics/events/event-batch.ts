// Invariant: an EventBatch holds the same events as an EventRecord[], column by column, the way
// the write path carries them from the hits to the insert with no object per event: the ids as
// 16 bytes a row, the click times as integers, and every text field (TEXT_FIELDS) as a dictionary
// column: row i holds values[index[i]]. Columns may share an index: in a batch built from hits,
// every field read from the link shares the link's, every field enriched from the User-Agent the
// User-Agent's, so a batch holds each distinct value once. Records and batches convert into each
// other without loss (the spool and the backfill keep records).
import type { EventRecord } from './analytics-event.ts';
import { EVENT_ID_BYTES, eventIdText, writeEventId } from './event-id.ts';
import { INSERTED_FIELDS, TEXT_FIELDS, type TextField } from './event-schema.ts';

/** One text column: row i holds values[index[i]]. */
export interface TextColumn {
  /** At least `rows` entries. */
  readonly index: Uint32Array;
  readonly values: readonly (string | null)[];
}

export interface EventBatch {
  readonly rows: number;
  /** The event ids, 16 bytes a row in RFC 9562 byte order. */
  readonly eventIds: Uint8Array;
  /**
   * Click times in microseconds since the epoch: Numbers while they are safe integers (every click
   * before 2255), BigInts for records beyond.
   */
  readonly createdAtMicros: Float64Array | BigInt64Array;
  readonly text: Readonly<Record<TextField, TextColumn>>;
}

/** 0, 1, … n-1: the index of a column holding one value per row. */
export function identityIndex(n: number): Uint32Array {
  const index = new Uint32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  return index;
}

/** A batch of the given records (ids and times checked: a malformed one throws). */
export function batchFromRecords(records: readonly EventRecord[]): EventBatch {
  const rows = records.length;
  const eventIds = new Uint8Array(rows * EVENT_ID_BYTES);
  records.forEach((r, i) => {
    if (!writeEventId(r.eventId, eventIds, i * EVENT_ID_BYTES)) throw new TypeError(`event ${i}: eventId ${JSON.stringify(r.eventId)} is not a UUID`);
  });
  const micros = records.map((r, i) => {
    if (typeof r.createdAtMicros !== 'string' || !/^-?\d{1,19}$/.test(r.createdAtMicros))
      throw new TypeError(`event ${i}: createdAtMicros is not an integer number of microseconds`);
    return BigInt(r.createdAtMicros);
  });
  const safe = micros.every((m) => m >= BigInt(Number.MIN_SAFE_INTEGER) && m <= BigInt(Number.MAX_SAFE_INTEGER));
  const createdAtMicros = safe ? Float64Array.from(micros, Number) : BigInt64Array.from(micros, (m) => BigInt.asIntN(64, m));
  if (!safe && micros.some((m, i) => createdAtMicros[i] !== m)) throw new TypeError('createdAtMicros beyond a 64-bit integer');
  const index = identityIndex(rows);
  const text = Object.fromEntries(TEXT_FIELDS.map((k) => [k, { index, values: records.map((r) => r[k]) }])) as unknown as Record<TextField, TextColumn>;
  return { rows, eventIds, createdAtMicros, text };
}

/** The records of rows [start, end) of the batch. */
export function recordsFromBatch(batch: EventBatch, start = 0, end = batch.rows): EventRecord[] {
  const out: EventRecord[] = [];
  for (let i = start; i < end; i++) {
    const r: Record<string, string | null> = {};
    for (const k of INSERTED_FIELDS) {
      if (k === 'eventId') r.eventId = eventIdText(batch.eventIds, i * EVENT_ID_BYTES);
      else if (k === 'createdAt') r.createdAtMicros = String(batch.createdAtMicros[i]);
      else {
        const c = batch.text[k];
        r[k] = c.values[c.index[i] as number] ?? null;
      }
    }
    out.push(r as unknown as EventRecord);
  }
  return out;
}
