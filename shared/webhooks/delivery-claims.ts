// Invariant: a message is leased before it is sent, by one worker at a time (FOR UPDATE SKIP
// LOCKED, then lease_owner and lease_until in the same statement); only the lease's owner records
// the outcome, and a lease outlives the attempt's deadline, so another worker takes a message only
// once its first worker is gone (killed: sent again, same webhook-id). An endpoint has at most
// PER_ENDPOINT_IN_FLIGHT messages leased at once, all workers together. analytics.events messages
// are claimed per endpoint, one in flight and at most one a second, start to start
// (next_analytics_at, moved a second on when a message is composed or a pending one taken), by the
// worker holding the endpoint's analytics lease: its oldest pending one when there is one (a retry
// or a replay, whose events are read back from its range), else a new one composed from the store
// after the endpoint's position, which moves to the new message's end in the transaction that
// makes it. No event is ever written to Postgres: a message holds its range, not its events.
import type { Sql } from '../db/sql.ts';
import { positionAt, type FeedPage, type FeedPosition } from '../analytics/reads/feed-page.ts';

/** An endpoint's messages leased at once (its analytics.events one included), all workers together. */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/** An endpoint's analytics.events messages start at least this far apart. */
export const ANALYTICS_INTERVAL_MS = 1_000;
/** Events in one analytics.events message at most. */
export const MAX_EVENTS_PER_MESSAGE = 1000;
/** Due messages looked at per claimed slot when choosing under the per-endpoint bound. */
const CANDIDATES_PER_SLOT = 8;
/** An endpoint whose store read came back empty looks again after this, doubling up to IDLE_MAX_MS. */
const IDLE_MIN_MS = 1_000;
const IDLE_MAX_MS = 5_000;

/** A message is free to lease: nobody holds it, or its holder's lease ran out (the holder is gone). */
const leaseFree = (m: string): string => `(${m}.lease_until is null or ${m}.lease_until < now())`;
/** Messages of the endpoint `e` leased now. */
const leasedOf = (e: string): string => `(select count(*) from webhook_messages l where l.endpoint_id = ${e} and l.lease_until > now())`;

export interface Claimed {
  id: string;
  endpointId: string;
  orgId: string;
  type: string;
  /** The body to send: stored, or composed from the store (analytics.events). */
  body: string;
  failures: number;
  /** When it was queued, or replayed (epoch ms): the start of its delivery lag. */
  sinceMs: number;
  replayed: boolean;
  url: string;
  secret: string;
  /** The previous secret while it still signs (24 h after a rotation), else null. */
  previousSecret: string | null;
}

interface ClaimedRow {
  id: string;
  endpoint_id: string;
  org_id: string;
  type: string;
  body: string;
  failures: number;
  since_ms: number;
  replayed: boolean;
  url: string;
  secret: string;
  previous_secret: string | null;
  created_at_ms: number;
  range_after_micros: string | null;
  range_after_event: string | null;
  range_until_micros: string | null;
  range_until_event: string | null;
}

const CLAIMED_COLUMNS = `m.id, m.endpoint_id, m.org_id::text, m.type, m.body, m.failures,
  (extract(epoch from coalesce(m.replayed_at, m.created_at)) * 1000)::float8 as since_ms, m.replayed_at is not null as replayed,
  (extract(epoch from m.created_at) * 1000)::float8 as created_at_ms,
  m.range_after_micros::text, m.range_after_event::text, m.range_until_micros::text, m.range_until_event::text,
  e.url, e.secret, case when e.previous_secret_until > now() then e.previous_secret end as previous_secret`;

const toClaimed = (r: ClaimedRow, body: string): Claimed => ({
  id: r.id,
  endpointId: r.endpoint_id,
  orgId: r.org_id,
  type: r.type,
  body,
  failures: r.failures,
  sinceMs: r.since_ms,
  replayed: r.replayed,
  url: r.url,
  secret: r.secret,
  previousSecret: r.previous_secret,
});

/** Where analytics.events bodies come from: the analytics store's feed (sync order, settled events). */
export interface AnalyticsFeedSource {
  feedPage(orgId: string, o: { after: FeedPosition; until?: FeedPosition; limit: number }): Promise<FeedPage>;
}

/** An analytics.events body: the API's event objects, as JSON.stringify would print the message. */
export function analyticsBody(createdAtMs: number, events: readonly string[]): string {
  return `{"type":"analytics.events","timestamp":${JSON.stringify(new Date(createdAtMs).toISOString())},"data":{"events":[${events.join(',')}]}}`;
}

export class DeliveryClaims {
  /** analytics.events messages composed by this worker, and the events in them. */
  readonly composed = { messages: 0, events: 0 };

  constructor(
    private readonly sql: Sql,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly feed: AnalyticsFeedSource | null,
  ) {}

  get #lease(): string {
    return `${this.leaseMs} milliseconds`;
  }

  /** Leases up to `limit` due messages other than analytics.events, within each endpoint's bound. */
  async messages(limit: number): Promise<Claimed[]> {
    const { sql } = this;
    const rows = await sql<ClaimedRow[]>`
      with head as (
        select m.id, m.endpoint_id, m.next_attempt_at from webhook_messages m join webhook_endpoints e on e.id = m.endpoint_id
        where m.status = 'PENDING' and m.next_attempt_at <= now() and ${sql.unsafe(leaseFree('m'))}
          and e.enabled and e.removed_at is null and m.type <> 'analytics.events'
          -- an endpoint at its bound is passed over, so its backlog cannot fill the candidates
          and ${sql.unsafe(leasedOf('m.endpoint_id'))} < ${PER_ENDPOINT_IN_FLIGHT}
        order by m.next_attempt_at limit ${limit * CANDIDATES_PER_SLOT}
      ), ranked as (
        select h.id, h.next_attempt_at,
          row_number() over (partition by h.endpoint_id order by h.next_attempt_at, h.id) + ${sql.unsafe(leasedOf('h.endpoint_id'))} as nth
        from head h
      ), due as (
        select m.id from webhook_messages m join ranked r on r.id = m.id
        where r.nth <= ${PER_ENDPOINT_IN_FLIGHT} and m.status = 'PENDING' and ${sql.unsafe(leaseFree('m'))}
        order by r.next_attempt_at limit ${limit}
        for update of m skip locked
      ), leased as (
        update webhook_messages m set lease_owner = ${this.owner}, lease_until = now() + ${this.#lease}::interval
        from due where m.id = due.id
        returning m.*
      )
      select ${sql.unsafe(CLAIMED_COLUMNS)} from leased m join webhook_endpoints e on e.id = m.endpoint_id`;
    return rows.map((r) => toClaimed(r, r.body));
  }

  /** Up to `limit` analytics.events messages, one per endpoint whose second has come; `onError` hears an endpoint's failure. */
  async analytics(limit: number, onError: (err: unknown) => void): Promise<Claimed[]> {
    if (!this.feed) return [];
    const endpoints = await this.sql<{ id: string; org_id: string; after_micros: string; after_event: string; idle_ms: number }[]>`
      update webhook_endpoints e set analytics_lease_owner = ${this.owner}, analytics_lease_until = now() + ${this.#lease}::interval
      from (
        select x.id from webhook_endpoints x
        where x.enabled and x.removed_at is null and 'analytics.events' = any(x.event_types) and x.next_analytics_at <= now()
          and (x.analytics_lease_until is null or x.analytics_lease_until < now())
          and not exists (select 1 from webhook_messages l where l.endpoint_id = x.id and l.type = 'analytics.events' and l.lease_until > now())
          and ${this.sql.unsafe(leasedOf('x.id'))} < ${PER_ENDPOINT_IN_FLIGHT}
        order by x.next_analytics_at limit ${limit}
        for update of x skip locked
      ) due
      where e.id = due.id
      returning e.id, e.org_id::text, e.analytics_after_micros::text as after_micros, e.analytics_after_event::text as after_event, e.analytics_idle_ms as idle_ms`;
    // Each endpoint's store read runs beside the others'; one that fails is looked at again in a second.
    const claimed = await Promise.all(
      endpoints.map((e) =>
        this.#analyticsOf(e).catch(async (err: unknown) => {
          onError(err);
          await this.#release(e.id, IDLE_MIN_MS, false).catch(onError);
          return null;
        }),
      ),
    );
    return claimed.filter((c): c is Claimed => c !== null);
  }

  /** The body of a claimed analytics.events message read back from its range (its first attempt was composed). */
  async #bodyOfRange(r: ClaimedRow): Promise<string> {
    if (r.range_after_micros === null || r.range_until_micros === null || !this.feed) return r.body;
    const page = await this.feed.feedPage(r.org_id, {
      after: { ingestedAtMicros: BigInt(r.range_after_micros), eventId: r.range_after_event ?? '' },
      until: { ingestedAtMicros: BigInt(r.range_until_micros), eventId: r.range_until_event ?? '' },
      limit: MAX_EVENTS_PER_MESSAGE,
    });
    return analyticsBody(r.created_at_ms, page.events);
  }

  async #analyticsOf(e: { id: string; org_id: string; after_micros: string; after_event: string; idle_ms: number }): Promise<Claimed | null> {
    const { sql } = this;
    // A message already made (a retry, a replay, one from before positions): due now, or not yet.
    const [pending] = await sql<{ id: string; due: boolean; next_ms: number }[]>`
      select id, next_attempt_at <= now() and ${sql.unsafe(leaseFree('m'))} as due, (extract(epoch from next_attempt_at) * 1000)::float8 as next_ms
      from webhook_messages m where m.endpoint_id = ${e.id} and m.type = 'analytics.events' and m.status = 'PENDING'
      order by m.next_attempt_at, m.created_at, m.id limit 1`;
    if (pending && !pending.due) {
      await this.#release(e.id, Math.max(IDLE_MIN_MS, pending.next_ms - Date.now()), false);
      return null;
    }
    if (pending) {
      const [row] = await sql<ClaimedRow[]>`
        with leased as (
          update webhook_messages m set lease_owner = ${this.owner}, lease_until = now() + ${this.#lease}::interval
          where m.id = ${pending.id} and ${sql.unsafe(leaseFree('m'))} returning m.*
        )
        select ${sql.unsafe(CLAIMED_COLUMNS)} from leased m join webhook_endpoints e on e.id = m.endpoint_id`;
      await this.#release(e.id, ANALYTICS_INTERVAL_MS, false);
      return row ? toClaimed(row, await this.#bodyOfRange(row)) : null;
    }
    const after: FeedPosition = { ingestedAtMicros: BigInt(e.after_micros), eventId: e.after_event };
    const page = await (this.feed as AnalyticsFeedSource).feedPage(e.org_id, { after, limit: MAX_EVENTS_PER_MESSAGE });
    if (page.last === null) {
      await this.#release(e.id, Math.min(IDLE_MAX_MS, Math.max(IDLE_MIN_MS, e.idle_ms * 2)));
      return null;
    }
    const until = page.last;
    if (page.events.length === 0) {
      // Only later copies of events already sent: the position moves past them, no message.
      await sql`
        update webhook_endpoints set analytics_after_micros = ${until.ingestedAtMicros.toString()}, analytics_after_event = ${until.eventId},
          analytics_lease_owner = null, analytics_lease_until = null
        where id = ${e.id} and analytics_lease_owner = ${this.owner}`;
      return null;
    }
    const row = await sql.begin(async (tx) => {
      const [moved] = await tx<{ id: string }[]>`
        update webhook_endpoints set analytics_after_micros = ${until.ingestedAtMicros.toString()}, analytics_after_event = ${until.eventId},
          analytics_lease_owner = null, analytics_lease_until = null, analytics_idle_ms = ${IDLE_MIN_MS},
          next_analytics_at = now() + ${`${ANALYTICS_INTERVAL_MS} milliseconds`}::interval
        where id = ${e.id} and analytics_lease_owner = ${this.owner} returning id`;
      if (!moved) return null; // the lease ran out and another worker took the endpoint: it composes
      const [made] = await tx<ClaimedRow[]>`
        with made as (
          insert into webhook_messages (id, endpoint_id, org_id, type, body, event_count, lease_owner, lease_until,
            range_after_micros, range_after_event, range_until_micros, range_until_event)
          values ('msg_' || replace(gen_random_uuid()::text, '-', ''), ${e.id}, ${e.org_id}, 'analytics.events', '', ${page.events.length},
            ${this.owner}, now() + ${this.#lease}::interval,
            ${after.ingestedAtMicros.toString()}, ${after.eventId}, ${until.ingestedAtMicros.toString()}, ${until.eventId})
          returning *
        )
        select ${tx.unsafe(CLAIMED_COLUMNS)} from made m join webhook_endpoints e on e.id = m.endpoint_id`;
      return made ?? null;
    });
    if (!row) return null;
    this.composed.messages++;
    this.composed.events += page.events.length;
    return toClaimed(row, analyticsBody(row.created_at_ms, page.events));
  }

  /** Gives the endpoint's analytics lease back; it is looked at again after `waitMs` (idle backoff when `idle`). */
  async #release(endpointId: string, waitMs: number, idle = true): Promise<void> {
    await this.sql`
      update webhook_endpoints set analytics_lease_owner = null, analytics_lease_until = null,
        next_analytics_at = greatest(next_analytics_at, now() + ${`${Math.round(waitMs)} milliseconds`}::interval)
        ${idle ? this.sql`, analytics_idle_ms = ${Math.round(waitMs)}` : this.sql``}
      where id = ${endpointId} and analytics_lease_owner = ${this.owner}`;
  }
}

/** The position an endpoint starts from when it begins to want analytics.events: now, in microseconds. */
export const startingPosition = (nowMs: number): FeedPosition => positionAt(BigInt(nowMs) * 1000n);
