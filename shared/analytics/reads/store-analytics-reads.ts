// Invariant: the AnalyticsReads port over an AnalyticsStore: browse/sync/export/aggregates read
// the store in the organisation's reporting time zone. Nothing is buffered: an export is the store's stream (its
// first chunk is read before answering). A store that cannot be reached (connection refused,
// reset or timed out) is 503 SML006 with Retry-After, never a 500.
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { exportContentType, exportFileName } from './event-export.ts';
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
    list: async (org, req) => {
      return reading(() => (req.mode === 'browse' ? store.browse(org.id, org.timezone, req) : store.sync(org.id, req)));
    },
    aggregates: async (org, req) => reading(() => store.aggregate(org.id, org.timezone, req)),
    visitors: async (org, req) => reading(() => store.visitors(org.id, org.timezone, req)),
    planAggregate: (org, req) => store.planAggregate(org.timezone, req),
    export: async (org, req) => {
      return {
        contentType: exportContentType(req.format),
        filename: exportFileName(req.from, req.to, req.format),
        body: await primed(store.exportEvents(org.id, org.timezone, req)),
      };
    },
  };
}
