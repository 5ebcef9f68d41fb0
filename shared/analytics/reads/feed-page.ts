// Invariant: a feed page is a run of stored events in sync order ((ingestedAt, eventId), settled
// rows only) as the API's event objects, already serialised, with the position of its last row
// read. The engine prints each object (the export's NDJSON line); parseFeedLines only splits the
// lines and mends the two escapes where ClickHouse's JSON differs from JSON.stringify, so a message
// body built from a page has the bytes JSON.stringify would give the same events. A row that is a
// later copy of an event stored twice (the store names them) is left out, as FINAL would.
import { jsonStringifyEscapes } from './event-export.ts';

/** A place in sync order: after every event up to (ingestedAtMicros, eventId), inclusive. */
export interface FeedPosition {
  ingestedAtMicros: bigint;
  eventId: string;
}

export interface FeedPage {
  /** Each event object's JSON, in sync order. */
  events: string[];
  /** The position of the last event; null for an empty page. */
  last: FeedPosition | null;
}

/** The position before every event ingested at or after `micros`. */
export const positionAt = (micros: bigint): FeedPosition => ({ ingestedAtMicros: micros, eventId: '00000000-0000-0000-0000-000000000000' });

/** One printed row of feedSql, before copies are dropped. */
export interface FeedRow {
  ingestedAtMicros: bigint;
  eventId: string;
  createdAtMicros: bigint;
  json: string;
}

/** Splits the engine's `<ingested micros>\t<eventId>\t<created micros>\t<json>\n` lines (feedSql). */
export function parseFeedLines(text: string): FeedRow[] {
  const rows: FeedRow[] = [];
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const tab1 = text.indexOf('\t', start);
    const tab2 = text.indexOf('\t', tab1 + 1);
    const tab3 = text.indexOf('\t', tab2 + 1);
    if (tab1 > start && tab2 > tab1 && tab3 > tab2 && tab3 < end) {
      rows.push({
        ingestedAtMicros: BigInt(text.slice(start, tab1)),
        eventId: text.slice(tab1 + 1, tab2),
        createdAtMicros: BigInt(text.slice(tab2 + 1, tab3)),
        json: text.slice(tab3 + 1, end),
      });
    }
    start = end + 1;
  }
  return rows;
}

/**
 * The page of `rows`: each row but those ingested after their event's first copy (`firstCopy`:
 * event id → the first copy's ingested_at, for events stored more than once); the position is
 * the last row's, kept or not.
 */
export function feedPageOf(rows: readonly FeedRow[], firstCopy: ReadonlyMap<string, bigint>): FeedPage {
  const events: string[] = [];
  for (const r of rows) {
    const first = firstCopy.get(r.eventId);
    if (first === undefined || r.ingestedAtMicros <= first) events.push(jsonStringifyEscapes(r.json));
  }
  const last = rows.at(-1);
  return { events, last: last ? { ingestedAtMicros: last.ingestedAtMicros, eventId: last.eventId } : null };
}
