// Invariant: an invalidation is written by the writer, in the same Postgres transaction as the
// change it announces: it commits (and is announced with NOTIFY on OUTBOX_CHANNEL, which Postgres
// delivers only at commit) or rolls back with the change. So a writer holding only DATABASE_URL
// reaches every redirector through the relay, and a crash after the commit loses nothing.
import type { Tx } from '../db/database.ts';
import { encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation } from './invalidation-bus.ts';

export const OUTBOX_TABLE = 'invalidation_outbox';
export const OUTBOX_CHANNEL = 'shortlink_outbox';

/** Queues `messages` in the writer's transaction `tx`. */
export async function enqueueInvalidations(tx: Tx, messages: readonly Invalidation[]): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((m) => ({ message: encodeInvalidation(m) }));
  await tx`insert into invalidation_outbox ${tx(rows)}`;
  await tx`select pg_notify(${OUTBOX_CHANNEL}, '')`;
}
