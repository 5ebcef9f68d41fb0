// Invariant: an export is produced row batch by row batch from a streaming query, so memory
// holds one batch whatever the export's size. NDJSON is one Analytics event object per line (keys
// in the spec's table order). CSV (RFC 4180) is a header row of the field names in the spec's
// table order, then one record per event; CRLF line ends; a field is quoted, with inner quotes
// doubled, only when it contains a comma, a quote, CR or LF; null is an empty field.
import { ANALYTICS_EVENT_FIELDS, toAnalyticsEvent, type AnalyticsEvent, type EventRecord } from './analytics-event.ts';
import type { ExportFormat } from './analytics-params.ts';

/** Rows per yielded chunk: small enough for steady backpressure, large enough to be cheap. */
const ROWS_PER_CHUNK = 1000;

export function exportContentType(format: ExportFormat): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

export function exportFileName(from: string, to: string, format: ExportFormat): string {
  return `analytics-events-${from}-to-${to}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_HEADER = `${ANALYTICS_EVENT_FIELDS.join(',')}\r\n`;

export function csvRecord(event: AnalyticsEvent): string {
  return `${ANALYTICS_EVENT_FIELDS.map((f) => csvField(event[f])).join(',')}\r\n`;
}

export function ndjsonLine(event: AnalyticsEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** Encodes streamed row batches as export text chunks (CSV starts with its header, even when empty). */
export async function* encodeExport(batches: AsyncIterable<readonly EventRecord[]>, format: ExportFormat): AsyncIterable<string> {
  const line = format === 'csv' ? csvRecord : ndjsonLine;
  if (format === 'csv') yield CSV_HEADER;
  for await (const batch of batches) {
    for (let i = 0; i < batch.length; i += ROWS_PER_CHUNK) {
      let chunk = '';
      for (const row of batch.slice(i, i + ROWS_PER_CHUNK)) chunk += line(toAnalyticsEvent(row));
      yield chunk;
    }
  }
}
