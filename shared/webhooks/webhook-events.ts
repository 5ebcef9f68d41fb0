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
  'link.deleted',
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
 * caller's transaction. Returns how many messages were queued. (analytics.events messages are
 * composed from the analytics store when they are sent: delivery-claims.ts.)
 */
export async function enqueueWebhookEvent(tx: Tx | Sql, orgId: string, type: WebhookEventType, data: unknown): Promise<number> {
  const body = messageBody(type, data);
  const rows = await tx`
    insert into webhook_messages (id, endpoint_id, org_id, type, body)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, e.org_id, ${type}, ${body}
    from webhook_endpoints e
    where e.org_id = ${orgId} and e.removed_at is null and e.enabled and ${type} = any(e.event_types)
    returning id`;
  return rows.length;
}
