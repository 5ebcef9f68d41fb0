// Invariant: analytics.events messages are made from events the store has taken (the pipeline's
// onStored, after a successful insert, from the write buffer and the backfill alike), as the
// API's event objects, at most MAX_EVENTS_PER_MESSAGE to a message, for every enabled endpoint
// of the event's organisation that wants them. Which organisations have such an endpoint is read
// every REFRESH_MS, so a batch of an organisation without one costs one set lookup per distinct
// organisation. The feed never blocks or fails an insert: chunks wait in a queue bounded by
// MAX_QUEUED_EVENTS and are written by one loop, retried every RETRY_MS while Postgres refuses;
// past the bound a chunk is dropped and counted (droppedEvents). The delivery worker sends at
// most one such message a second per endpoint. A process killed between an insert and this
// write loses those events' messages (the store keeps the events: Sync reads them).
import type { EventRecord } from '../analytics/events/analytics-event.ts';
import { toAnalyticsEvent } from '../analytics/events/analytics-event.ts';
import { type EventBatch, recordsFromBatch } from '../analytics/events/event-batch.ts';
import type { Sql } from '../db/sql.ts';
import { silentLogger, type Logger } from '../log/logger.ts';
import { enqueueWebhookEvent } from './webhook-events.ts';

export const MAX_EVENTS_PER_MESSAGE = 1000;
const REFRESH_MS = 5_000;
const RETRY_MS = 1_000;
const MAX_QUEUED_EVENTS = 200_000;

interface Chunk {
  orgId: string;
  events: unknown[];
}

export interface AnalyticsFeedMetrics {
  queuedEvents: number;
  messagesWritten: number;
  droppedEvents: number;
}

export class AnalyticsWebhookFeed {
  readonly #sql: Sql;
  readonly #log: Logger;
  #orgs = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  readonly #queue: Chunk[] = [];
  #queued = 0;
  #draining: Promise<void> | null = null;
  #closed = false;
  readonly #m = { messagesWritten: 0, droppedEvents: 0 };

  constructor(o: { sql: Sql; logger?: Logger }) {
    this.#sql = o.sql;
    this.#log = o.logger ?? silentLogger;
  }

  metrics(): AnalyticsFeedMetrics {
    return { ...this.#m, queuedEvents: this.#queued };
  }

  /** Reads which organisations have an analytics.events endpoint now (start() does it every REFRESH_MS). */
  async refresh(): Promise<void> {
    const rows = await this.#sql<{ org_id: string }[]>`
      select distinct org_id from webhook_endpoints where enabled and removed_at is null and 'analytics.events' = any(event_types)`;
    this.#orgs = new Set(rows.map((r) => r.org_id));
  }

  /**
   * Reads the subscribed organisations now and then every REFRESH_MS, on a timer (not on the
   * first batch: a batch stored before the first read would find nobody subscribed).
   */
  async start(): Promise<void> {
    const refresh = () => this.refresh().catch((err: unknown) => this.#log.warn({ err }, 'reading analytics.events endpoints failed'));
    await refresh();
    this.#timer ??= setInterval(() => void refresh(), REFRESH_MS);
    this.#timer.unref();
  }

  /** The pipeline's onStored: never throws, never waits. */
  readonly onStored = (stored: EventBatch | readonly EventRecord[]): void => {
    try {
      if (this.#orgs.size === 0) return;
      const byOrg = Array.isArray(stored) ? this.#fromRecords(stored as readonly EventRecord[]) : this.#fromBatch(stored as EventBatch);
      for (const [orgId, records] of byOrg) {
        for (let i = 0; i < records.length; i += MAX_EVENTS_PER_MESSAGE) {
          const events = records.slice(i, i + MAX_EVENTS_PER_MESSAGE).map(toAnalyticsEvent);
          if (this.#queued + events.length > MAX_QUEUED_EVENTS) {
            this.#m.droppedEvents += events.length;
            continue;
          }
          this.#queue.push({ orgId, events });
          this.#queued += events.length;
        }
      }
      this.#drain();
    } catch (err) {
      this.#log.error({ err }, 'analytics.events feed failed');
    }
  };

  #fromBatch(batch: EventBatch): Map<string, EventRecord[]> {
    const out = new Map<string, EventRecord[]>();
    const org = batch.text.orgId;
    let any = false;
    for (let i = 0; i < batch.rows && !any; i++) any = this.#orgs.has(org.values[org.index[i] as number] ?? '');
    if (!any) return out;
    return this.#fromRecords(recordsFromBatch(batch));
  }

  #fromRecords(records: readonly EventRecord[]): Map<string, EventRecord[]> {
    const out = new Map<string, EventRecord[]>();
    for (const r of records) {
      if (!this.#orgs.has(r.orgId)) continue;
      const list = out.get(r.orgId);
      if (list) list.push(r);
      else out.set(r.orgId, [r]);
    }
    return out;
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = (async () => {
      while (this.#queue.length > 0) {
        const chunk = this.#queue[0] as Chunk;
        try {
          this.#m.messagesWritten += await enqueueWebhookEvent(this.#sql, chunk.orgId, 'analytics.events', { events: chunk.events }, chunk.events.length);
          this.#queue.shift();
          this.#queued -= chunk.events.length;
        } catch (err) {
          this.#log.warn({ err }, 'queueing analytics.events messages failed; retrying');
          if (this.#closed) return;
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
    })().finally(() => {
      this.#draining = null;
    });
  }

  /** Stops taking events and waits for the queue's write (which stops at its first failure now). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#draining;
  }
}
