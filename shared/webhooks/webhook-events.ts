// Invariant: the event types and the body every message carries: {"type", "timestamp" (ISO
// 8601), "data"}, serialised once when the message is queued and sent byte for byte on every
// attempt and replay. A message is written into the outbox (webhook_messages) in the
// transaction of the change it reports, one row per enabled endpoint that wants its type.
import type { Sql, Tx } from '../db/sql.ts';

export const WEBHOOK_EVENT_TYPES = [
  'link.created',
  'link.updated',
  'link.archived',
  'link.expired',
  'domain.verified',
  'domain.failed',
  'analytics.events',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The type of the message "send test event" queues; every endpoint gets it whatever it wants. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const isWebhookEventType = (t: string): t is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(t);

export function messageBody(type: string, data: unknown, at: Date = new Date()): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * Queues the event for every enabled endpoint of the organisation that wants its type, in the
 * caller's transaction. With a sourceKey, an endpoint that already has a message of that key gets
 * no second one. Returns how many messages were queued.
 */
export async function enqueueWebhookEvent(
  tx: Tx | Sql,
  orgId: string,
  type: WebhookEventType,
  data: unknown,
  o: { eventCount?: number; sourceKey?: string } = {},
): Promise<number> {
  const body = messageBody(type, data);
  const rows = await tx`
    insert into webhook_messages (id, endpoint_id, org_id, type, body, event_count, source_key)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, e.org_id, ${type}, ${body}, ${o.eventCount ?? 1}, ${o.sourceKey ?? null}
    from webhook_endpoints e
    where e.org_id = ${orgId} and e.removed_at is null and e.enabled and ${type} = any(e.event_types)
    on conflict (endpoint_id, source_key) where source_key is not null do nothing
    returning id`;
  return rows.length;
}

const EVENTS_OPEN = ',"data":{"events":[';
const EVENTS_CLOSE = ']}}';

/**
 * One analytics.events body holding the events of `bodies` in order, with the first body's type
 * and timestamp: the events' JSON is spliced, not parsed and written again. The bytes equal
 * messageBody's for the concatenated events.
 */
export function mergeAnalyticsBodies(bodies: readonly string[]): string {
  const parts: string[] = [];
  let head = '';
  for (const body of bodies) {
    const open = body.indexOf(EVENTS_OPEN);
    if (open < 0 || !body.endsWith(EVENTS_CLOSE)) throw new Error('not an analytics.events body');
    if (head === '') head = body.slice(0, open + EVENTS_OPEN.length);
    const events = body.slice(open + EVENTS_OPEN.length, body.length - EVENTS_CLOSE.length);
    if (events !== '') parts.push(events);
  }
  return `${head}${parts.join(',')}${EVENTS_CLOSE}`;
}
