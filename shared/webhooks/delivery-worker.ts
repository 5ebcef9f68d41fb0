// Invariant: a message is sent by one worker at a time. A worker claims due messages by taking a
// lease on them (FOR UPDATE SKIP LOCKED, then lease_owner/lease_until set in the same
// statement); only the lease's owner records the outcome, and a lease outlives the attempt's
// deadline (LEASE_MS > DELIVERY_TIMEOUT_MS), so a second worker can take a message only once
// its first worker is gone (killed: the lease runs out and the message is sent again with the
// same webhook-id: at least once). analytics.events messages are claimed one per endpoint per
// second (next_analytics_at), and only while none of that endpoint's is in flight; never-sent
// ones are merged up to 1,000 events first. A started worker keeps up to batchSize attempts in
// flight, claiming as slots free (a slow receiver holds its own slots only), and at most
// PER_ENDPOINT_IN_FLIGHT of one endpoint's other messages are leased at once, across workers, so
// one slow or hanging endpoint cannot take every slot. Outcomes: 2xx delivered; 410 disables the endpoint and drops its
// pending messages; anything else (3xx included, no answer included) is retried after
// RETRY_SCHEDULE_MS[failures - 1], or after Retry-After on a 429/503, and is FAILED once the
// schedule is spent. Every attempt is logged; attempts and finished messages older than
// LOG_RETENTION_MS are pruned.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Sql, Tx } from '../db/sql.ts';
import { silentLogger, type Logger } from '../log/logger.ts';
import { MAX_EVENTS_PER_MESSAGE } from './analytics-feed.ts';
import { mergeAnalyticsBodies } from './webhook-events.ts';
import { openSecret } from './webhook-secret.ts';
import { DELIVERY_TIMEOUT_MS, sendAttempt, type AttemptResult } from './webhook-sender.ts';

/** After the 1st, 2nd, … failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about a day and a half). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
export const LEASE_MS = DELIVERY_TIMEOUT_MS * 4;
export const LOG_RETENTION_MS = 30 * 24 * 3600_000;
/** A Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;
const ANALYTICS_INTERVAL_MS = 1_000;
const COUNT_INTERVAL_MS = 5_000;
/** Never-sent analytics.events messages looked at for merging into one. */
const MERGE_CANDIDATES = 200;
/** An endpoint's non-analytics messages leased at once, all workers together. */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/** Due messages looked at per claimed slot when choosing under the per-endpoint bound. */
const CANDIDATES_PER_SLOT = 8;

export interface DeliveryWorkerOptions {
  sql: Sql;
  allowPrivate: boolean;
  secretsKey: Buffer | undefined;
  logger?: Logger;
  /** Messages claimed per round (sent concurrently). */
  batchSize?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** Replaces RETRY_SCHEDULE_MS (tests). */
  retryScheduleMs?: readonly number[];
}

export interface DeliveryMetrics {
  delivered: number;
  /** Attempts that did not deliver. */
  failedAttempts: number;
  /** Messages given up on (schedule spent) or dropped (410). */
  failed: number;
  retried: number;
  pending: number;
  /** Enabled endpoints with a message still retrying and no delivery since a failure over an hour ago. */
  endpointsFailingForAnHour: number;
}

interface Claimed {
  id: string;
  endpoint_id: string;
  body: string;
  failures: number;
  /** When it was queued, or replayed (epoch ms): the start of its delivery lag. */
  since_ms: number;
  replayed: boolean;
  url: string;
  secret: string;
  /** The previous secret while it still signs (24 h after a rotation), else null. */
  previous_secret: string | null;
}

const CLAIMED_COLUMNS = `m.id, m.endpoint_id, m.body, m.failures,
  (extract(epoch from coalesce(m.replayed_at, m.created_at)) * 1000)::float8 as since_ms, m.replayed_at is not null as replayed,
  e.url, e.secret, case when e.previous_secret_until > now() then e.previous_secret end as previous_secret`;

export class DeliveryWorker {
  readonly owner = `worker-${randomUUID()}`;
  readonly #o: Required<Omit<DeliveryWorkerOptions, 'secretsKey' | 'logger'>> & Pick<DeliveryWorkerOptions, 'secretsKey'>;
  readonly #log: Logger;
  readonly #m: DeliveryMetrics = { delivered: 0, failedAttempts: 0, failed: 0, retried: 0, pending: 0, endpointsFailingForAnHour: 0 };
  #timer: NodeJS.Timeout | null = null;
  /** The claim in progress (start()'s loop). */
  #filling: Promise<void> | null = null;
  /** Attempts in flight (start()'s loop), each removed when its outcome is recorded. */
  readonly #sending = new Set<Promise<void>>();
  #stopped = false;
  /** Claims again now, unless a claim is under way (start() sets it). */
  #wake: () => void = () => undefined;
  #wokenWhileFilling = false;
  #lastPrune = 0;
  #lastCount = 0;
  /** Called with each delivered message's lag from its creation (or replay) to its receipt, in seconds. */
  onDelivered: ((lagSeconds: number) => void) | null = null;

  constructor(o: DeliveryWorkerOptions) {
    this.#o = {
      batchSize: 32,
      pollIntervalMs: 250,
      leaseMs: LEASE_MS,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      retryScheduleMs: RETRY_SCHEDULE_MS,
      ...o,
    };
    this.#log = o.logger ?? silentLogger;
  }

  metrics(): DeliveryMetrics {
    return { ...this.#m };
  }

  /** Sends continuously: claims into free slots, again at once while it finds work, else every pollIntervalMs. */
  start(): void {
    this.#stopped = false;
    const tick = (): void => {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      if (this.#stopped) return;
      this.#filling = this.#fill().then(
        (claimed) => {
          this.#filling = null;
          if (this.#stopped) return;
          const full = this.#sending.size >= this.#o.batchSize;
          const again = (claimed > 0 || this.#wokenWhileFilling) && !full;
          this.#wokenWhileFilling = false;
          this.#timer = setTimeout(tick, again ? 0 : this.#o.pollIntervalMs);
        },
        (err: unknown) => {
          this.#filling = null;
          this.#log.warn({ err }, 'webhook delivery round failed');
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.pollIntervalMs);
        },
      );
    };
    this.#wake = () => {
      if (this.#stopped) return;
      if (this.#filling === null) tick();
      else this.#wokenWhileFilling = true;
    };
    tick();
  }

  /** Stops claiming; waits for the attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#filling;
    await Promise.all(this.#sending);
  }

  /** Claims into the free slots and starts those attempts without waiting for them. */
  async #fill(): Promise<number> {
    const free = this.#o.batchSize - this.#sending.size;
    const claimed = free > 0 ? await this.#claimSome(free) : [];
    for (const m of claimed) {
      const attempt: Promise<void> = this.#deliver(m)
        .catch((err: unknown) => this.#log.warn({ err, webhookId: m.id }, 'recording a webhook attempt failed'))
        .finally(() => {
          this.#sending.delete(attempt);
          this.#wake(); // a slot is free, and the endpoint may have its next message due
        });
      this.#sending.add(attempt);
    }
    await this.#housekeeping();
    return claimed.length;
  }

  async #claimSome(limit: number): Promise<Claimed[]> {
    const others = await this.#claim(limit);
    return limit > others.length ? [...others, ...(await this.#claimAnalytics(limit - others.length))] : others;
  }

  /** One round (tests): claims due messages, sends them, records the outcomes. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claimSome(this.#o.batchSize);
    await Promise.all(claimed.map((m) => this.#deliver(m)));
    await this.#housekeeping();
    return claimed.length;
  }

  async #housekeeping(): Promise<void> {
    if (Date.now() - this.#lastPrune > 3600_000) {
      this.#lastPrune = Date.now();
      await this.prune();
    }
    if (Date.now() - this.#lastCount > COUNT_INTERVAL_MS) {
      this.#lastCount = Date.now();
      await this.count();
    }
  }

  /**
   * Leases up to `limit` due messages (not analytics.events), at most PER_ENDPOINT_IN_FLIGHT of an
   * endpoint's counting those already leased, chosen among the first due ones.
   */
  async #claim(limit: number): Promise<Claimed[]> {
    const { sql } = this.#o;
    return sql<Claimed[]>`
      with head as (
        select m.id, m.endpoint_id, m.next_attempt_at from webhook_messages m join webhook_endpoints e on e.id = m.endpoint_id
        where m.status = 'PENDING' and m.next_attempt_at <= now() and (m.lease_until is null or m.lease_until < now())
          and e.enabled and e.removed_at is null and m.type <> 'analytics.events'
          -- an endpoint at its bound is passed over, so its backlog cannot fill the candidates
          and (select count(*) from webhook_messages l where l.endpoint_id = m.endpoint_id and l.lease_until > now()) < ${PER_ENDPOINT_IN_FLIGHT}
        order by m.next_attempt_at limit ${limit * CANDIDATES_PER_SLOT}
      ), ranked as (
        select h.id, h.next_attempt_at,
          row_number() over (partition by h.endpoint_id order by h.next_attempt_at, h.id)
            + (select count(*) from webhook_messages l where l.endpoint_id = h.endpoint_id and l.lease_until > now()) as nth
        from head h
      ), due as (
        select m.id from webhook_messages m join ranked r on r.id = m.id
        where r.nth <= ${PER_ENDPOINT_IN_FLIGHT} and m.status = 'PENDING' and (m.lease_until is null or m.lease_until < now())
        order by r.next_attempt_at limit ${limit}
        for update of m skip locked
      ), leased as (
        update webhook_messages m set lease_owner = ${this.owner}, lease_until = now() + ${`${this.#o.leaseMs} milliseconds`}::interval
        from due where m.id = due.id
        returning m.*
      )
      select ${sql.unsafe(CLAIMED_COLUMNS)} from leased m join webhook_endpoints e on e.id = m.endpoint_id`;
  }

  /** One analytics.events message per endpoint whose second has come and that has none in flight. */
  async #claimAnalytics(limit: number): Promise<Claimed[]> {
    return this.#o.sql.begin(async (tx) => {
      const endpoints = await tx<{ id: string }[]>`
        select e.id from webhook_endpoints e
        where e.enabled and e.removed_at is null and e.next_analytics_at <= now()
          and exists (select 1 from webhook_messages m where m.endpoint_id = e.id and m.type = 'analytics.events' and m.status = 'PENDING'
                      and m.next_attempt_at <= now() and (m.lease_until is null or m.lease_until < now()))
          and not exists (select 1 from webhook_messages l where l.endpoint_id = e.id and l.type = 'analytics.events' and l.lease_until > now())
        limit ${limit}
        for update of e skip locked`;
      const out: Claimed[] = [];
      for (const { id } of endpoints) {
        const rows = await this.#claimOneAnalytics(tx, id);
        if (rows.length > 0) {
          await tx`update webhook_endpoints set next_analytics_at = now() + ${`${ANALYTICS_INTERVAL_MS} milliseconds`}::interval where id = ${id}`;
          out.push(...rows);
        }
      }
      return out;
    });
  }

  /**
   * The endpoint's next analytics.events message, leased. Messages never sent yet (no attempt, no
   * replay, never leased: their ids were never seen; a worker killed mid-send leaves its lease
   * owner behind, and the receiver may hold that message already) are merged into the oldest of them, up to
   * MAX_EVENTS_PER_MESSAGE events (the others are kept as MERGED, naming the oldest, so their
   * source keys still stop a batch handed over again), so an endpoint that receives one message a second still
   * receives up to that many events a second however many batches made them.
   */
  async #claimOneAnalytics(tx: Tx, endpointId: string): Promise<Claimed[]> {
    const due = await tx<{ id: string; event_count: number; fresh: boolean }[]>`
      select m.id, m.event_count,
        (m.failures = 0 and m.replayed_at is null and m.last_attempt_at is null and m.lease_owner is null) as fresh
      from webhook_messages m
      where m.endpoint_id = ${endpointId} and m.type = 'analytics.events' and m.status = 'PENDING'
        and m.next_attempt_at <= now() and (m.lease_until is null or m.lease_until < now())
      order by m.next_attempt_at, m.created_at, m.id limit ${MERGE_CANDIDATES}
      for update skip locked`;
    const head = due[0];
    if (!head) return [];
    const merged = [head];
    if (head.fresh) {
      let events = head.event_count;
      for (const m of due.slice(1)) {
        if (!m.fresh || events + m.event_count > MAX_EVENTS_PER_MESSAGE) break;
        merged.push(m);
        events += m.event_count;
      }
    }
    if (merged.length > 1) {
      // Bodies are read only for the messages merged (a backlog's 200 candidates would be megabytes).
      const bodies = await tx<{ id: string; body: string }[]>`select id, body from webhook_messages where id in ${tx(merged.map((m) => m.id))}`;
      const byId = new Map(bodies.map((b) => [b.id, b.body]));
      const body = mergeAnalyticsBodies(merged.map((m) => byId.get(m.id) ?? ''));
      const count = merged.reduce((n, m) => n + m.event_count, 0);
      await tx`update webhook_messages set body = ${body}, event_count = ${count} where id = ${head.id}`;
      // Their events travel in the head now: the body is not kept twice.
      await tx`update webhook_messages set status = 'MERGED', merged_into = ${head.id}, body = '' where id in ${tx(merged.slice(1).map((m) => m.id))}`;
    }
    return tx<Claimed[]>`
      with leased as (
        update webhook_messages m set lease_owner = ${this.owner}, lease_until = now() + ${`${this.#o.leaseMs} milliseconds`}::interval
        where m.id = ${head.id} returning m.*
      )
      select ${tx.unsafe(CLAIMED_COLUMNS)} from leased m join webhook_endpoints e on e.id = m.endpoint_id`;
  }

  #headers(m: Claimed): Record<string, string> {
    const now = new Date();
    const secrets = [openSecret(m.secret, this.#o.secretsKey)];
    if (m.previous_secret !== null) secrets.push(openSecret(m.previous_secret, this.#o.secretsKey));
    const signature = secrets.map((s) => new Webhook(s).sign(m.id, now, m.body)).join(' ');
    return { 'webhook-id': m.id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
  }

  async #deliver(m: Claimed): Promise<void> {
    let result: AttemptResult;
    try {
      result = await sendAttempt(m.url, this.#headers(m), m.body, { allowPrivate: this.#o.allowPrivate, timeoutMs: this.#o.timeoutMs });
    } catch (err) {
      // Only a secret that cannot be opened gets here: logged, retried on the schedule.
      result = { statusCode: null, error: err instanceof Error ? err.message : String(err), durationMs: 0, responseBody: '', retryAfterMs: null };
    }
    await this.#record(m, result);
  }

  async #record(m: Claimed, r: AttemptResult): Promise<void> {
    const { sql } = this.#o;
    const status = r.statusCode;
    const delivered = status !== null && status >= 200 && status < 300;
    await sql.begin(async (tx) => {
      await tx`
        insert into webhook_attempts (message_id, endpoint_id, status_code, error, duration_ms, response_body, replay)
        values (${m.id}, ${m.endpoint_id}, ${status}, ${r.error}, ${r.durationMs}, ${r.responseBody.replaceAll('\u0000', '')}, ${m.replayed})`;
      const mine = { id: m.id, owner: this.owner };
      if (delivered) {
        await tx`
          update webhook_messages set status = 'DELIVERED', delivered_at = now(), last_attempt_at = now(), lease_owner = null, lease_until = null
          where id = ${mine.id} and lease_owner = ${mine.owner}`;
        return;
      }
      if (status === 410) {
        await tx`update webhook_endpoints set enabled = false, disabled_reason = 'GONE' where id = ${m.endpoint_id}`;
        await tx`
          update webhook_messages set status = 'DROPPED', last_attempt_at = case when id = ${m.id} then now() else last_attempt_at end,
            lease_owner = null, lease_until = null
          where endpoint_id = ${m.endpoint_id} and status = 'PENDING'`;
        return;
      }
      const failures = m.failures + 1;
      const schedule = this.#o.retryScheduleMs;
      if (failures > schedule.length) {
        await tx`
          update webhook_messages set status = 'FAILED', failures = ${failures}, last_attempt_at = now(), lease_owner = null, lease_until = null
          where id = ${mine.id} and lease_owner = ${mine.owner}`;
        return;
      }
      const honoured = (status === 429 || status === 503) && r.retryAfterMs !== null ? Math.min(r.retryAfterMs, MAX_RETRY_AFTER_MS) : null;
      const delay = honoured ?? (schedule[failures - 1] as number);
      await tx`
        update webhook_messages set failures = ${failures}, last_attempt_at = now(),
          next_attempt_at = now() + ${`${delay} milliseconds`}::interval, lease_owner = null, lease_until = null
        where id = ${mine.id} and lease_owner = ${mine.owner}`;
    });
    if (delivered) {
      this.#m.delivered++;
      this.onDelivered?.(Math.max(0, Date.now() - m.since_ms) / 1000);
    } else {
      this.#m.failedAttempts++;
      if (status === 410 || m.failures + 1 > this.#o.retryScheduleMs.length) this.#m.failed++;
      else this.#m.retried++;
      this.#log.info({ webhookId: m.id, endpointId: m.endpoint_id, status, error: r.error }, 'webhook attempt failed');
    }
  }

  /** Reads the gauges: messages pending, endpoints failing for an hour. */
  async count(): Promise<void> {
    const { sql } = this.#o;
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
    this.#m.pending = row?.pending ?? 0;
    this.#m.endpointsFailingForAnHour = row?.failing ?? 0;
  }

  /** Removes attempts older than the log's 30 days, and finished messages with them. */
  async prune(): Promise<void> {
    const { sql } = this.#o;
    const age = `${LOG_RETENTION_MS} milliseconds`;
    await sql`delete from webhook_attempts where attempted_at < now() - ${age}::interval`;
    await sql`
      delete from webhook_messages
      where status <> 'PENDING' and coalesce(last_attempt_at, created_at) < now() - ${age}::interval`;
  }
}

/** A process's delivery worker (ingest in production, npm start when embedded), started. */
export function startDeliveryWorker(
  sql: Sql,
  config: { WEBHOOK_ALLOW_PRIVATE: boolean; WEBHOOK_SECRETS_KEY?: Buffer | undefined },
  logger: Logger,
): DeliveryWorker {
  const worker = new DeliveryWorker({
    sql,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    secretsKey: config.WEBHOOK_SECRETS_KEY,
    logger: logger.child({ role: 'webhooks' }),
  });
  worker.start();
  return worker;
}
