// Invariant: an attempt is recorded by its lease's owner only, with the outcome the retry policy
// decided (retry-policy.ts): the attempt is logged, the lease cleared, and the message delivered,
// rescheduled, failed, or, on 410, the endpoint disabled with every pending message dropped, in
// one transaction. Attempts and finished messages older than LOG_RETENTION_MS are pruned.
import type { Sql } from '../db/sql.ts';
import type { Claimed } from './delivery-claims.ts';
import type { Outcome } from './retry-policy.ts';
import type { AttemptResult } from './webhook-sender.ts';

export const LOG_RETENTION_MS = 30 * 24 * 3600_000;

export async function recordAttempt(sql: Sql, owner: string, m: Claimed, r: AttemptResult, outcome: Outcome): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      insert into webhook_attempts (message_id, endpoint_id, status_code, error, duration_ms, response_body, replay)
      values (${m.id}, ${m.endpointId}, ${r.statusCode}, ${r.error}, ${r.durationMs}, ${r.responseBody.replaceAll('\u0000', '')}, ${m.replayed})`;
    const failures = m.failures + 1;
    switch (outcome.kind) {
      case 'delivered':
        await tx`
          update webhook_messages set status = 'DELIVERED', delivered_at = now(), last_attempt_at = now(), lease_owner = null, lease_until = null
          where id = ${m.id} and lease_owner = ${owner}`;
        return;
      case 'gone':
        await tx`update webhook_endpoints set enabled = false, disabled_reason = 'GONE' where id = ${m.endpointId}`;
        await tx`
          update webhook_messages set status = 'DROPPED', last_attempt_at = case when id = ${m.id} then now() else last_attempt_at end,
            lease_owner = null, lease_until = null
          where endpoint_id = ${m.endpointId} and status = 'PENDING'`;
        return;
      case 'failed':
        await tx`
          update webhook_messages set status = 'FAILED', failures = ${failures}, last_attempt_at = now(), lease_owner = null, lease_until = null
          where id = ${m.id} and lease_owner = ${owner}`;
        return;
      case 'retry':
        await tx`
          update webhook_messages set failures = ${failures}, last_attempt_at = now(),
            next_attempt_at = now() + ${`${outcome.delayMs} milliseconds`}::interval, lease_owner = null, lease_until = null
          where id = ${m.id} and lease_owner = ${owner}`;
    }
  });
}

/** The gauges: messages pending, and enabled endpoints failing (no delivery since a failure) for an hour. */
export async function countPending(sql: Sql): Promise<{ pending: number; failing: number }> {
  const [row] = await sql<{ pending: number; failing: number }[]>`
    select (select count(*)::int from webhook_messages where status = 'PENDING') as pending,
      (select count(*)::int from webhook_endpoints e
       where e.enabled and e.removed_at is null
         and exists (select 1 from webhook_messages m where m.endpoint_id = e.id and m.status = 'PENDING' and m.failures > 0)
         and exists (
           select 1 from webhook_attempts a
           where a.endpoint_id = e.id and a.attempted_at <= now() - interval '1 hour' and coalesce(a.status_code between 200 and 299, false) = false
             and not exists (select 1 from webhook_attempts b where b.endpoint_id = e.id and b.attempted_at > a.attempted_at and b.status_code between 200 and 299))
      ) as failing`;
  return { pending: row?.pending ?? 0, failing: row?.failing ?? 0 };
}

/** Removes attempts older than the log's 30 days, and finished messages with them. */
export async function pruneLog(sql: Sql): Promise<void> {
  const age = `${LOG_RETENTION_MS} milliseconds`;
  await sql`delete from webhook_attempts where attempted_at < now() - ${age}::interval`;
  await sql`
    delete from webhook_messages
    where status <> 'PENDING' and coalesce(last_attempt_at, created_at) < now() - ${age}::interval`;
}
