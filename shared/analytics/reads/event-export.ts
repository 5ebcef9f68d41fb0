// Invariant: an export is produced chunk by chunk from a streaming query, so memory holds a chunk
// or two whatever the export's size. The engine prints every line (exportLinesSql) and its bytes
// go to the client as they are, never decoded into JavaScript strings: this module only adds the
// CSV header, cuts the bytes into pieces of bounded size at line ends (a UTF-8 character never
// contains a newline byte), and rewrites the two escapes where ClickHouse's JSON differs from
// JSON.stringify, in the rare piece that holds one (found by a byte search for `\u`). NDJSON is one Analytics
// event object per line (keys in the spec's table order), exactly as JSON.stringify prints it.
// CSV (RFC 4180) is a header row of the field names in the spec's table order, then one record
// per event; CRLF line ends; a field is quoted, with inner quotes doubled, only when it contains
// a comma, a quote, CR or LF; null is an empty field.
import { EVENT_OBJECT_FIELDS } from '../events/event-schema.ts';
import type { ExportFormat } from './analytics-params.ts';

/** Bytes per yielded piece (cut at the next line end): steady backpressure, cheap to send. */
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export function exportContentType(format: ExportFormat): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

export function exportFileName(from: string, to: string, format: ExportFormat): string {
  return `analytics-events-${from}-to-${to}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

export const CSV_HEADER = `${EVENT_OBJECT_FIELDS.join(',')}\r\n`;
const CSV_HEADER_BYTES = Buffer.from(CSV_HEADER, 'utf8');

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

/** jsonStringifyEscapes over UTF-8 bytes of whole lines: the same bytes when no `\u` escape is in them. */
function jsonStringifyEscapeBytes(piece: Buffer): Buffer {
  if (piece.indexOf('\\u') === -1) return piece;
  const text = piece.toString('utf8');
  const fixed = jsonStringifyEscapes(text);
  return fixed === text ? piece : Buffer.from(fixed, 'utf8');
}

/**
 * The export file as byte pieces, from the engine's printed lines (cut anywhere): the CSV header
 * first (even when empty), then pieces of about CHUNK_BYTES that end at a line end.
 */
export async function* exportBytes(printed: AsyncIterable<Uint8Array>, format: ExportFormat): AsyncIterable<Uint8Array> {
  if (format === 'csv') yield CSV_HEADER_BYTES;
  let carry: Buffer | null = null;
  const finish = (piece: Buffer): Buffer => (format === 'csv' ? piece : jsonStringifyEscapeBytes(piece));
  for await (const chunk of printed) {
    const bytes: Buffer = carry === null ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([carry, chunk]);
    const end = bytes.lastIndexOf(NEWLINE) + 1;
    // An NDJSON line holds no raw newline, so bytes[0, end) is whole lines and no escape is cut.
    carry = end < bytes.length ? Buffer.from(bytes.subarray(end)) : null;
    for (let start = 0; start < end; ) {
      const next = bytes.indexOf(NEWLINE, start + CHUNK_BYTES);
      const stop = next === -1 || next >= end ? end : next + 1;
      yield finish(bytes.subarray(start, stop));
      start = stop;
    }
  }
  if (carry !== null) yield finish(carry);
}
