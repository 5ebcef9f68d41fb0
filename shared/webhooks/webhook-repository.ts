// Invariant: endpoints are managed here for the admin CLI and the dashboard alike. A URL is
// checked by the address policy before it is saved; the secret is made here, sealed at rest
// (webhook-secret.ts) and shown in full only to whoever adds or rotates it; listings show its last
// 4 characters. A rotation keeps the previous secret signing for ROTATION_OVERLAP_MS. A requeued
// message is the same message (same id, same body: an analytics.events one reads its range again).
// An endpoint that begins to want analytics.events (added, enabled, given the type)
// gets the events stored from then on.
import { isUuid } from '../ids/model/uuid.ts';
import type { Sql } from '../db/sql.ts';
import { AppError } from '../errors/app-error.ts';
import { formatPgInstant } from '../time/instant.ts';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events.ts';
import { generateSecret, lastFour, openSecret, sealSecret } from './webhook-secret.ts';
import { checkWebhookUrl } from './webhook-url-policy.ts';

export const ROTATION_OVERLAP_MS = 24 * 3600_000;
export const MAX_ENDPOINTS_PER_ORG = 20;

export interface WebhookSettings {
  allowPrivate: boolean;
  secretsKey: Buffer | undefined;
}

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  eventTypes: WebhookEventType[];
  secretLast4: string;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
}

interface EndpointRow {
  id: string;
  org_id: string;
  url: string;
  event_types: string[];
  secret_last4: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  orgId: r.org_id,
  url: r.url,
  eventTypes: r.event_types.filter(isWebhookEventType),
  secretLast4: r.secret_last4,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  createdAt: formatPgInstant(r.created_at),
});

export function endpointNotFound(id: string): AppError {
  return new AppError('EN001', `Webhook endpoint ${id} not found`);
}

/** The event types given, checked; VE001 naming the valid ones otherwise. */
export function parseEventTypes(input: readonly string[]): WebhookEventType[] {
  const list = [...new Set(input.map((t) => t.trim()).filter((t) => t !== ''))];
  const bad = list.filter((t) => !isWebhookEventType(t));
  if (list.length === 0 || bad.length > 0) {
    throw new AppError('VE001', `eventTypes must be one or more of ${WEBHOOK_EVENT_TYPES.join(', ')}`, { field: 'eventTypes' });
  }
  return list as WebhookEventType[];
}

export async function addEndpoint(
  sql: Sql,
  settings: WebhookSettings,
  orgId: string,
  input: { url: string; eventTypes: readonly string[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const eventTypes = parseEventTypes(input.eventTypes);
  const url = await checkWebhookUrl(input.url, { allowPrivate: settings.allowPrivate });
  const secret = generateSecret();
  return sql.begin(async (tx) => {
    await tx`select id from organizations where id = ${orgId} for update`;
    const [count] = await tx<{ n: number }[]>`select count(*)::int as n from webhook_endpoints where org_id = ${orgId} and removed_at is null`;
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_ORG)
      throw new AppError('VE001', `An organisation has at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints`, { field: 'url' });
    const [row] = await tx<EndpointRow[]>`
      insert into webhook_endpoints (org_id, url, event_types, secret, secret_last4)
      values (${orgId}, ${url}, ${eventTypes}, ${sealSecret(secret, settings.secretsKey)}, ${lastFour(secret)})
      returning *`;
    return { endpoint: toEndpoint(row as EndpointRow), secret };
  });
}

export async function listEndpoints(sql: Sql, orgId: string): Promise<WebhookEndpoint[]> {
  const rows = await sql<EndpointRow[]>`select * from webhook_endpoints where org_id = ${orgId} and removed_at is null order by created_at, id`;
  return rows.map(toEndpoint);
}

export async function findEndpoint(sql: Sql, orgId: string, id: string): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw endpointNotFound(id);
  const [row] = await sql<EndpointRow[]>`select * from webhook_endpoints where org_id = ${orgId} and id = ${id} and removed_at is null`;
  if (!row) throw endpointNotFound(id);
  return toEndpoint(row);
}

/** Removes the endpoint (soft: its log stays for the 30 days) and drops its pending messages. */
export async function removeEndpoint(sql: Sql, orgId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(sql, orgId, id);
  await sql.begin(async (tx) => {
    await tx`update webhook_endpoints set removed_at = now(), enabled = false where id = ${id}`;
    await tx`update webhook_messages set status = 'DROPPED', lease_owner = null, lease_until = null where endpoint_id = ${id} and status = 'PENDING'`;
  });
  return { ...endpoint, enabled: false };
}

/** analytics.events: an endpoint that begins to want them (enabled again, or given the type) gets the events stored from now on. */
const START_ANALYTICS = `analytics_after_micros = (extract(epoch from clock_timestamp()) * 1000000)::bigint,
  analytics_after_event = '00000000-0000-0000-0000-000000000000', next_analytics_at = now()`;

export async function setEndpointEnabled(sql: Sql, orgId: string, id: string, enabled: boolean): Promise<WebhookEndpoint> {
  const current = await findEndpoint(sql, orgId, id);
  const starts = enabled && !current.enabled;
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints set enabled = ${enabled}, disabled_reason = null ${starts ? sql`, ${sql.unsafe(START_ANALYTICS)}` : sql``}
    where id = ${id} returning *`;
  return toEndpoint(row as EndpointRow);
}

/** Changes the endpoint's URL (through the same address policy as add) and the event types it wants. */
export async function updateEndpoint(
  sql: Sql,
  settings: WebhookSettings,
  orgId: string,
  id: string,
  input: { url?: string; eventTypes?: readonly string[] },
): Promise<WebhookEndpoint> {
  const current = await findEndpoint(sql, orgId, id);
  const eventTypes = input.eventTypes === undefined ? current.eventTypes : parseEventTypes(input.eventTypes);
  const url = input.url === undefined ? current.url : await checkWebhookUrl(input.url, { allowPrivate: settings.allowPrivate });
  const starts = eventTypes.includes('analytics.events') && !current.eventTypes.includes('analytics.events');
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints set url = ${url}, event_types = ${eventTypes} ${starts ? sql`, ${sql.unsafe(START_ANALYTICS)}` : sql``}
    where id = ${id} returning *`;
  return toEndpoint(row as EndpointRow);
}

/** A new secret; the previous one keeps signing for ROTATION_OVERLAP_MS. */
export async function rotateSecret(sql: Sql, settings: WebhookSettings, orgId: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await findEndpoint(sql, orgId, id);
  const secret = generateSecret();
  const [row] = await sql<EndpointRow[]>`
    update webhook_endpoints
    set previous_secret = secret, previous_secret_until = now() + ${`${ROTATION_OVERLAP_MS} milliseconds`}::interval,
        secret = ${sealSecret(secret, settings.secretsKey)}, secret_last4 = ${lastFour(secret)}
    where id = ${id} returning *`;
  return { endpoint: toEndpoint(row as EndpointRow), secret };
}

/** The secret in full (the dashboard's "reveal"). */
export async function revealSecret(sql: Sql, settings: WebhookSettings, orgId: string, id: string): Promise<string> {
  await findEndpoint(sql, orgId, id);
  const [row] = await sql<{ secret: string }[]>`select secret from webhook_endpoints where id = ${id}`;
  return openSecret((row as { secret: string }).secret, settings.secretsKey);
}

/** Stores a message for the endpoint, due now; its webhook-id. */
export async function insertMessage(sql: Sql, m: { endpointId: string; orgId: string; type: string; body: string }): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into webhook_messages (id, endpoint_id, org_id, type, body)
    values ('msg_' || replace(gen_random_uuid()::text, '-', ''), ${m.endpointId}, ${m.orgId}, ${m.type}, ${m.body})
    returning id`;
  return (row as { id: string }).id;
}

/** Messages of the organisation to send again: one by id, or an endpoint's created in [from, to). */
export type ReplaySelection = { messageId: string } | { endpointId: string; from: Date; to: Date };

/**
 * Puts the selected messages back in the queue as they were (same id, same body), due now; a
 * message merged into another (MERGED) selects the message that carried its events, and one
 * already PENDING stays as it is. The rows put back.
 */
export async function requeueMessages(sql: Sql, orgId: string, which: ReplaySelection): Promise<{ id: string; endpointId: string; type: string }[]> {
  const chosen =
    'messageId' in which
      ? sql`select coalesce(merged_into, id) as id from webhook_messages where id = ${which.messageId} and org_id = ${orgId}`
      : sql`
          select coalesce(merged_into, id) as id from webhook_messages
          where endpoint_id = ${which.endpointId} and org_id = ${orgId}
            and created_at >= ${which.from.toISOString()} and created_at < ${which.to.toISOString()}`;
  const rows = await sql<{ id: string; endpoint_id: string; type: string }[]>`
    update webhook_messages set status = 'PENDING', failures = 0, next_attempt_at = now(), replayed_at = now(), lease_owner = null, lease_until = null
    where id in (${chosen}) and org_id = ${orgId} and status not in ('PENDING', 'MERGED') returning id, endpoint_id, type`;
  return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id, type: r.type }));
}

/** Makes each endpoint's next analytics.events message due now. */
export async function analyticsDueNow(sql: Sql, endpointIds: readonly string[]): Promise<void> {
  if (endpointIds.length > 0) await sql`update webhook_endpoints set next_analytics_at = now() where id in ${sql(endpointIds)}`;
}

/** The id of the message that carries `messageId`'s events (itself, or the one it was merged into); null when the organisation has none. */
export async function findCarrierMessage(sql: Sql, orgId: string, messageId: string): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`select coalesce(merged_into, id) as id from webhook_messages where id = ${messageId} and org_id = ${orgId}`;
  return row?.id ?? null;
}

export interface WebhookAttempt {
  messageId: string;
  type: string;
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string;
  replay: boolean;
  messageStatus: string;
}

/** The endpoint's attempts, newest first (the log kept 30 days). */
export async function listAttempts(sql: Sql, orgId: string, endpointId: string, limit = 100): Promise<WebhookAttempt[]> {
  await findEndpoint(sql, orgId, endpointId);
  const rows = await sql<
    {
      message_id: string;
      type: string;
      attempted_at: string;
      status_code: number | null;
      error: string | null;
      duration_ms: number;
      response_body: string;
      replay: boolean;
      status: string;
    }[]
  >`
    select a.message_id, m.type, a.attempted_at, a.status_code, a.error, a.duration_ms, a.response_body, a.replay, m.status
    from webhook_attempts a join webhook_messages m on m.id = a.message_id
    where a.endpoint_id = ${endpointId} order by a.attempted_at desc, a.id desc limit ${limit}`;
  return rows.map((r) => ({
    messageId: r.message_id,
    type: r.type,
    attemptedAt: formatPgInstant(r.attempted_at),
    statusCode: r.status_code,
    error: r.error,
    durationMs: r.duration_ms,
    responseBody: r.response_body,
    replay: r.replay,
    messageStatus: r.status,
  }));
}
