// Invariant: analytics.events messages are made from events the store has taken, as the API's
// event objects, at most MAX_EVENTS_PER_MESSAGE to a message, for every endpoint that wants them
// when the events are handed over: which organisations have one is read per handed-over batch
// (one indexed query naming the batch's organisations), so an endpoint gets every event stored
// after it was added. Each message carries a source key (the batch's dedup token, organisation
// and chunk), unique per endpoint, so a batch handed over twice makes its messages once.
// - From the write buffer (stored): never blocks or fails an insert; batches wait in a queue
//   bounded by MAX_QUEUED_EVENTS, written by one loop, retried every RETRY_MS while Postgres
//   refuses; past the bound a batch is dropped and counted (droppedEvents). A process killed
//   between an insert and this write loses those events' messages (the store keeps the events).
// - From the backfill (backfilled): written before the spooled batch is acknowledged, so a kill
//   at any point re-hands the batch and the source keys keep its messages single. If Postgres
//   refuses that write, the batch joins the queue instead and the backfill goes on.
import type { EventRecord } from '../analytics/events/analytics-event.ts';
import { toAnalyticsEvent } from '../analytics/events/analytics-event.ts';
import { type EventBatch, recordsFromBatch } from '../analytics/events/event-batch.ts';
import type { StoredEventsSink } from '../analytics/write-path/analytics-pipeline.ts';
import type { Sql } from '../db/sql.ts';
import { silentLogger, type Logger } from '../log/logger.ts';
import { enqueueWebhookEvent } from './webhook-events.ts';

export const MAX_EVENTS_PER_MESSAGE = 1000;
const RETRY_MS = 1_000;
const MAX_QUEUED_EVENTS = 200_000;

interface Handed {
  events: EventBatch | readonly EventRecord[];
  token: string;
  count: number;
}

export interface AnalyticsFeedMetrics {
  queuedEvents: number;
  messagesWritten: number;
  droppedEvents: number;
}

function orgsOf(events: EventBatch | readonly EventRecord[]): string[] {
  const orgs = new Set<string>();
  if (Array.isArray(events)) for (const r of events as readonly EventRecord[]) orgs.add(r.orgId);
  else {
    const b = events as EventBatch;
    const col = b.text.orgId;
    for (let i = 0; i < b.rows; i++) orgs.add(col.values[col.index[i] as number] ?? '');
  }
  return [...orgs];
}

export class AnalyticsWebhookFeed implements StoredEventsSink {
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #queue: Handed[] = [];
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

  readonly stored = (batch: EventBatch, token: string): void => {
    this.#enqueue({ events: batch, token, count: batch.rows });
  };

  readonly backfilled = async (records: readonly EventRecord[], token: string): Promise<void> => {
    try {
      await this.write(records, token);
    } catch (err) {
      this.#log.warn({ err }, 'queueing analytics.events messages failed; queued in memory and retried');
      this.#enqueue({ events: records, token, count: records.length });
    }
  };

  /**
   * Writes the messages of the events for every endpoint wanting them now; a message already made
   * from the same token, organisation and chunk is not made again. Returns the messages written.
   */
  async write(events: EventBatch | readonly EventRecord[], token: string): Promise<number> {
    const subscribed = await this.#sql<{ org_id: string }[]>`
      select distinct org_id::text as org_id from webhook_endpoints
      where org_id::text = any(${orgsOf(events)}) and enabled and removed_at is null and 'analytics.events' = any(event_types)`;
    if (subscribed.length === 0) return 0;
    const wanted = new Set(subscribed.map((r) => r.org_id));
    const byOrg = new Map<string, EventRecord[]>();
    for (const r of Array.isArray(events) ? (events as readonly EventRecord[]) : recordsFromBatch(events as EventBatch)) {
      if (!wanted.has(r.orgId)) continue;
      const list = byOrg.get(r.orgId);
      if (list) list.push(r);
      else byOrg.set(r.orgId, [r]);
    }
    let written = 0;
    for (const [orgId, records] of byOrg) {
      for (let i = 0; i < records.length; i += MAX_EVENTS_PER_MESSAGE) {
        const chunk = records.slice(i, i + MAX_EVENTS_PER_MESSAGE).map(toAnalyticsEvent);
        const sourceKey = `${token}/${orgId}/${i / MAX_EVENTS_PER_MESSAGE}`;
        written += await enqueueWebhookEvent(this.#sql, orgId, 'analytics.events', { events: chunk }, { eventCount: chunk.length, sourceKey });
      }
    }
    this.#m.messagesWritten += written;
    return written;
  }

  #enqueue(h: Handed): void {
    if (this.#closed) return;
    if (this.#queued + h.count > MAX_QUEUED_EVENTS) {
      this.#m.droppedEvents += h.count;
      this.#log.error({ events: h.count }, 'analytics.events queue full: these events make no message');
      return;
    }
    this.#queue.push(h);
    this.#queued += h.count;
    this.#drain();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = (async () => {
      while (this.#queue.length > 0) {
        const h = this.#queue[0] as Handed;
        try {
          await this.write(h.events, h.token);
          this.#queue.shift();
          this.#queued -= h.count;
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
    await this.#draining;
  }
}
