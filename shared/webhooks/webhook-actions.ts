// Invariant: the webhook actions a person asks for (dashboard, admin CLI), each one function that
// checks its input and that the endpoint or message belongs to the organisation (EN001
// otherwise): a test event, and a replay of a message or of an endpoint's messages of a range.
// A replay puts the same message back in the queue (same id, same body: an analytics.events one
// reads its range again); a replayed analytics.events message is its endpoint's next one (at most
// one a second, as ever).
import type { Sql } from '../db/sql.ts';
import { AppError } from '../errors/app-error.ts';
import { messageBody, TEST_EVENT_TYPE } from './webhook-events.ts';
import { analyticsDueNow, findCarrierMessage, findEndpoint, insertMessage, type ReplaySelection, requeueMessages } from './webhook-repository.ts';

/** Queues a test message for the endpoint (whatever event types it wants); its webhook-id. */
export async function sendTestEvent(sql: Sql, orgId: string, endpointId: string): Promise<string> {
  const endpoint = await findEndpoint(sql, orgId, endpointId);
  const body = messageBody(TEST_EVENT_TYPE, { endpointId: endpoint.id, message: 'This is a test event.' });
  return insertMessage(sql, { endpointId: endpoint.id, orgId, type: TEST_EVENT_TYPE, body });
}

/** A replay range's bounds from ISO 8601 text; VE001 naming `from` or `to` otherwise (`to` after `from`). */
export function parseReplayRange(input: { from: string; to: string }): { from: Date; to: Date } {
  const at = (field: 'from' | 'to'): Date => {
    const text = input[field].trim();
    const d = new Date(text);
    if (text === '' || Number.isNaN(d.getTime())) throw new AppError('VE001', `${field} must be a date and time (ISO 8601)`, { field });
    return d;
  };
  const from = at('from');
  const to = at('to');
  if (to.getTime() <= from.getTime()) throw new AppError('VE001', 'to must be after from', { field: 'to' });
  return { from, to };
}

/**
 * Puts messages of the organisation back in the queue, due now: one by id, or every one an
 * endpoint was sent between two instants. The ids replayed (a message already queued counts: it
 * will be sent anyway).
 */
export async function replayMessages(sql: Sql, orgId: string, which: ReplaySelection): Promise<string[]> {
  const selection = 'messageId' in which ? which : { ...which, endpointId: (await findEndpoint(sql, orgId, which.endpointId)).id };
  const rows = await requeueMessages(sql, orgId, selection);
  await analyticsDueNow(sql, [...new Set(rows.filter((r) => r.type === 'analytics.events').map((r) => r.endpointId))]);
  if ('messageId' in which && rows.length === 0) {
    const carrier = await findCarrierMessage(sql, orgId, which.messageId);
    if (carrier === null) throw new AppError('EN001', `Webhook message ${which.messageId} not found`);
    return [carrier];
  }
  return rows.map((r) => r.id);
}

/** The dashboard's replay of an endpoint's messages of a range given as ISO 8601 text. */
export function replayEndpointRange(sql: Sql, orgId: string, endpointId: string, range: { from: string; to: string }): Promise<string[]> {
  return replayMessages(sql, orgId, { endpointId, ...parseReplayRange(range) });
}
