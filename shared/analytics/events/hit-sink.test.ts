// Invariant: both HitSink adapters pass the one contract suite: the in-memory sink, and the
// production write buffer over the real chDB store with a real file spool.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openChdbStore } from '../../../test/support/analytics-stores.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { EventWriteBuffer } from '../write-path/event-write-buffer.ts';
import { FileSpool } from '../write-path/file-spool.ts';
import { hitSinkContract } from './hit-sink.contract.ts';
import { MemoryHitSink } from './memory-hit-sink.ts';

hitSinkContract('memory', {
  make: () => new MemoryHitSink(),
  settle: async () => {},
  delivered: async (sink, orgId) => sink.hits.filter((h) => h.link.orgId === orgId).length,
});

const root = mkdtempSync(join(process.cwd(), '.tmp', 'hit-sink-'));
let store: AnalyticsStore | null = null;
const buffers: EventWriteBuffer[] = [];
hitSinkContract('event write buffer (chDB + file spool)', {
  make: async () => {
    store ??= await openChdbStore(join(root, 'chdb'), { syncSettleMillis: 0 });
    const buffer = new EventWriteBuffer({
      store,
      enricher: new HitEnricher(),
      spool: await FileSpool.open(join(root, `spool-${buffers.length}`)),
      flushIntervalMs: 60_000,
    });
    buffers.push(buffer);
    return buffer;
  },
  settle: (sink) => sink.flush(),
  delivered: async (_sink, orgId) => store!.countEvents(orgId),
  close: async () => {
    for (const b of buffers) await b.close();
    await store?.close();
    rmSync(root, { recursive: true, force: true });
  },
});
