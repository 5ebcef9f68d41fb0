// Invariant: the AnalyticsReads port over an AnalyticsStore: the query string is validated by the
// analytics params module (spec messages verbatim), then browse/sync/export read the store in the
// organisation's reporting time zone. Nothing is buffered: an export is the store's stream (its
// first chunk is read before answering). A store that cannot be reached (connection refused,
// reset or timed out) is 503 SML006 with Retry-After, never a 500.
import { parseAggregatesQuery, parseEventsQuery, parseExportQuery, type RawQuery } from './analytics-params.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { exportContentType, exportFileName } from './event-export.ts';
import { AppError } from '../../errors/app-error.ts';
import { isDependencyUnreachable } from '../../net/dependency-unreachable.ts';
import { dependencyUnavailable } from '../../errors/domain-errors.ts';

async function reading<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw isDependencyUnreachable(err) ? dependencyUnavailable() : err;
  }
}

/** The stream with its first chunk already read (so an unreachable store is still an error answer). */
async function primed(body: AsyncIterable<Uint8Array>): Promise<AsyncIterable<Uint8Array>> {
  const it = body[Symbol.asyncIterator]();
  const first = await reading(() => it.next());
  return (async function* () {
    try {
      if (first.done) return;
      yield first.value;
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await it.return?.();
    }
  })();
}
import type { AnalyticsReads } from './analytics-reads.ts';

export function storeAnalyticsReads(store: AnalyticsStore): AnalyticsReads {
  return {
    list: async (org, query) => {
      const req = parseEventsQuery(query as RawQuery);
      if (req instanceof AppError) throw req;
      return reading(() => (req.mode === 'browse' ? store.browse(org.id, org.timezone, req) : store.sync(org.id, req)));
    },
    aggregates: async (org, query) => {
      const req = parseAggregatesQuery(query as RawQuery);
      if (req instanceof AppError) throw req;
      return reading(() => store.aggregate(org.id, org.timezone, req));
    },
    export: async (org, query) => {
      const req = parseExportQuery(query as RawQuery);
      if (req instanceof AppError) throw req;
      return {
        contentType: exportContentType(req.format),
        filename: exportFileName(req.from, req.to, req.format),
        body: await primed(store.exportEvents(org.id, org.timezone, req)),
      };
    },
  };
}
