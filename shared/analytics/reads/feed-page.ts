// Invariant: a feed page is a run of stored events in sync order ((ingestedAt, eventId), settled
// rows only) as the API's event objects, already serialised, with the position of its last event.
// The engine prints each object (the export's NDJSON line); parseFeedLines only splits the lines
// and mends the two escapes where ClickHouse's JSON differs from JSON.stringify, so a message body
// built from a page has the bytes JSON.stringify would give the same events.
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

/** Splits the engine's `<micros>\t<eventId>\t<json>\n` lines (feedSql) into a page. */
export function parseFeedLines(text: string): FeedPage {
  const events: string[] = [];
  let last: FeedPosition | null = null;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const tab1 = text.indexOf('\t', start);
    const tab2 = text.indexOf('\t', tab1 + 1);
    if (tab1 > start && tab2 > tab1 && tab2 < end) {
      last = { ingestedAtMicros: BigInt(text.slice(start, tab1)), eventId: text.slice(tab1 + 1, tab2) };
      events.push(jsonStringifyEscapes(text.slice(tab2 + 1, end)));
    }
    start = end + 1;
  }
  return { events, last };
}
