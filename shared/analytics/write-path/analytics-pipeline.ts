// Invariant: the write path of a process is assembled here from the store and spool the
// composition root opened: a write buffer (the HitSink) that enriches, batches and inserts, and
// spools what the store refuses, and, where this process backfills, the worker that moves spooled
// batches back into the store. close() writes (or spools) everything the buffer holds, then stops
// the backfill worker; the store and the spool belong to the composition root, which closes them
// after this, so nothing accepted is lost.
import type { Logger } from '../../log/logger.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import type { VisitorSaltStore } from '../enrichment/visitor-salts.ts';
import type { AnalyticsStore } from '../store/analytics-store.ts';
import { BackfillWorker } from './backfill-worker.ts';
import type { EventSpool } from './event-spool.ts';
import { EventWriteBuffer, type EventWriteBufferOptions } from './event-write-buffer.ts';

export interface AnalyticsPipelineOptions {
  store: AnalyticsStore;
  spool: EventSpool;
  /** Spools this process moves back into the store, one backfill worker each. */
  backfill: readonly EventSpool[];
  /** The visitor hash's daily salts (default this process's memory). */
  visitorSalts?: VisitorSaltStore;
  buffer?: Pick<EventWriteBufferOptions, 'maxBatch' | 'flushIntervalMs' | 'maxQueuedEvents' | 'insertTimeoutMs' | 'storeCooldownMs'>;
  /** The process's logger; the pipeline logs store and spool failures (one line per 5 s), drops and where it writes. */
  logger: Logger;
}

export interface AnalyticsPipeline {
  store: AnalyticsStore;
  /** The HitSink to give the redirector. */
  sink: EventWriteBuffer;
  spool: EventSpool;
  backfill: BackfillWorker[];
  close(): Promise<void>;
}

const ERROR_LOG_INTERVAL_MS = 5_000;

export function createAnalyticsPipeline(o: AnalyticsPipelineOptions): AnalyticsPipeline {
  const { store, spool, logger } = o;
  let lastLog = 0;
  const onError = (err: unknown, context: string): void => {
    const now = Date.now();
    if (now - lastLog < ERROR_LOG_INTERVAL_MS) return; // an outage fails every batch: one line per interval is enough
    lastLog = now;
    logger.warn({ err }, `${context} failed`);
  };
  const backfill = o.backfill.map((s) => new BackfillWorker({ spool: s, store, onError: (e) => onError(e, 'backfill') }));
  let dropsSinceLog = 0;
  let lastDropLog = 0;
  const sink = new EventWriteBuffer({
    ...o.buffer,
    onDrop: () => {
      dropsSinceLog++;
      const now = Date.now();
      if (now - lastDropLog < ERROR_LOG_INTERVAL_MS) return; // counted in metrics; one line per interval
      logger.warn(`dropped ${dropsSinceLog} events: the write buffer is full (the store and both spools are refusing or slow)`);
      lastDropLog = now;
      dropsSinceLog = 0;
    },
    store,
    enricher: new HitEnricher({ salts: o.visitorSalts }),
    spool,
    onSpooled: () => {
      for (const b of backfill) b.kick();
    },
    onError,
  });
  for (const b of backfill) b.start();
  logger.info(`store ${store.transport.description}, spool ${spool.description}`);
  return {
    store,
    sink,
    spool,
    backfill,
    close: async () => {
      const m = await sink.close();
      if (m.droppedEvents > 0) logger.warn(`dropped ${m.droppedEvents} events (queue bound or spool failure)`);
      for (const b of backfill) await b.stop();
    },
  };
}
