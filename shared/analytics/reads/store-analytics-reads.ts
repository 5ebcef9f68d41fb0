// Invariant: the AnalyticsReads port over an AnalyticsStore: the query string is validated by the
// analytics params module (spec messages verbatim), then browse/sync/export read the store in the
// organisation's reporting time zone. Nothing is buffered: an export is the store's stream.
import { parseEventsQuery, parseExportQuery, type RawQuery } from './analytics-params.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { exportContentType, exportFileName } from './event-export.ts';
import { AppError } from '../../errors/app-error.ts';
import type { AnalyticsReads } from './analytics-reads.ts';

export function storeAnalyticsReads(store: AnalyticsStore): AnalyticsReads {
  return {
    list: async (org, query) => {
      const req = parseEventsQuery(query as RawQuery);
      if (req instanceof AppError) throw req;
      return req.mode === 'browse' ? store.browse(org.id, org.timezone, req) : store.sync(org.id, req);
    },
    export: async (org, query) => {
      const req = parseExportQuery(query as RawQuery);
      if (req instanceof AppError) throw req;
      return {
        contentType: exportContentType(req.format),
        filename: exportFileName(req.from, req.to, req.format),
        body: store.exportEvents(org.id, org.timezone, req),
      };
    },
  };
}
