// Invariant: an export is produced chunk by chunk from a streaming query, so memory holds a chunk
// or two whatever the export's size. The engine prints every line (exportLinesSql); this module
// only adds the CSV header, cuts the text into pieces of bounded size at line ends, and rewrites
// the two escapes where ClickHouse's JSON differs from JSON.stringify. NDJSON is one Analytics
// event object per line (keys in the spec's table order), exactly as JSON.stringify prints it.
// CSV (RFC 4180) is a header row of the field names in the spec's table order, then one record
// per event; CRLF line ends; a field is quoted, with inner quotes doubled, only when it contains
// a comma, a quote, CR or LF; null is an empty field.
import { EVENT_OBJECT_FIELDS } from '../events/event-schema.ts';
import type { ExportFormat } from './analytics-params.ts';

/** Characters per yielded piece (cut at the next line end): steady backpressure, cheap to send. */
const CHUNK_CHARS = 64 * 1024;

export function exportContentType(format: ExportFormat): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

export function exportFileName(from: string, to: string, format: ExportFormat): string {
  return `analytics-events-${from}-to-${to}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

export const CSV_HEADER = `${EVENT_OBJECT_FIELDS.join(',')}\r\n`;

/** A `\u` escape JSON.stringify would not write: upper-case hex (\u001B), or U+2028/U+2029. */
const FOREIGN_ESCAPE = /\\u(?:00[01][A-F]|202[89])/;
/** The same, only where the backslash starts an escape (not the second half of `\\`). */
const FOREIGN_ESCAPE_EXACT = /(?<!\\)((?:\\\\)*)\\u(00[01][A-F]|202[89])/g;

/**
 * Rewrites ClickHouse's JSON text into JSON.stringify's: ClickHouse prints control characters
 * as `\u001B` where JSON.stringify prints `\u001b`, and escapes U+2028/U+2029, which
 * JSON.stringify leaves as they are. Everything else (the short escapes, `\"`, `\\`, raw UTF-8,
 * `/` unescaped) is already the same. Text without such an escape is returned as it is.
 */
export function jsonStringifyEscapes(text: string): string {
  if (!FOREIGN_ESCAPE.test(text)) return text;
  return text.replace(FOREIGN_ESCAPE_EXACT, (_match: string, pairs: string, code: string) =>
    code.startsWith('00') ? `${pairs}\\u${code.toLowerCase()}` : `${pairs}${String.fromCharCode(Number.parseInt(code, 16))}`,
  );
}

/**
 * The export file as text pieces, from the engine's printed lines (cut anywhere): the CSV header
 * first (even when empty), then pieces of about CHUNK_CHARS that end at a line end.
 */
export async function* exportText(lines: AsyncIterable<string>, format: ExportFormat): AsyncIterable<string> {
  if (format === 'csv') yield CSV_HEADER;
  let carry = '';
  for await (const chunk of lines) {
    const text = carry + chunk;
    const end = text.lastIndexOf('\n') + 1;
    carry = text.slice(end);
    // An NDJSON line holds no raw '\n', so `whole` is whole lines and no escape is cut.
    const whole = format === 'csv' ? text.slice(0, end) : jsonStringifyEscapes(text.slice(0, end));
    for (let start = 0; start < whole.length; ) {
      const next = whole.indexOf('\n', start + CHUNK_CHARS);
      const stop = next === -1 ? whole.length : next + 1;
      yield whole.slice(start, stop);
      start = stop;
    }
  }
  if (carry !== '') yield format === 'csv' ? carry : jsonStringifyEscapes(carry);
}
