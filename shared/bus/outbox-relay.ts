// Invariant: the relay moves committed outbox rows to the bus, oldest first, and deletes a row
// only in the transaction that published it, after its publish succeeded: every committed
// invalidation is published at least once. Several relays may run (every server process runs
// one): SKIP LOCKED hands each row to one of them at a time, and a row whose publish failed stays
// for the next round. The relay wakes on the outbox NOTIFY and on every (re)LISTEN, and polls
// every pollIntervalMs as a backstop for notifications lost while its LISTEN connection was
// down; with no connection that may LISTEN (a transaction pooler and no direct URL) it polls
// every POOLED_POLL_MS instead, so a change still reaches the bus within a fraction of a second. While the bus stays down, rows older than maxAgeMs (far beyond every cache TTL, so the
// caches have expired what they name) are pruned undelivered, which bounds the table. A relay
// given `purge` runs it on a batch's messages before it publishes them (the shared cache tier's
// entries are dropped there, so a message every subscriber missed leaves nothing stale behind);
// a purge that fails fails the round like a failed publish.
import type { Sql } from '../db/database.ts';
import { decodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus } from './invalidation-bus.ts';
import { OUTBOX_CHANNEL } from './invalidation-outbox.ts';

export interface OutboxRelayOptions {
  sql: Sql;
  /** The client that LISTENs for the outbox NOTIFY; null when none may (polled instead). Default: sql. */
  listen?: Sql | null;
  bus: InvalidationBus;
  /** Drops what the messages name from a shared cache before they are published. */
  purge?: (messages: readonly Invalidation[]) => Promise<void>;
  /** Backstop poll (ms). Default 1000. */
  pollIntervalMs?: number;
  /** Rows published per transaction. Default 500. */
  batchSize?: number;
  /** Rows older than this (ms) are deleted undelivered. Default 10 minutes. */
  maxAgeMs?: number;
  onError?: (err: unknown) => void;
}

export interface OutboxRelayMetrics {
  relayed: number;
  failedRounds: number;
  pruned: number;
}

const PRUNE_EVERY_MS = 60_000;
/** The poll when nothing LISTENs: with the bus's own delivery, well within a second. */
export const POOLED_POLL_MS = 200;

export class OutboxRelay {
  readonly #o: Required<Omit<OutboxRelayOptions, 'onError' | 'purge' | 'listen'>> & Pick<OutboxRelayOptions, 'onError' | 'purge'>;
  readonly #listen: Sql | null;
  readonly #m: OutboxRelayMetrics = { relayed: 0, failedRounds: 0, pruned: 0 };
  #timer: NodeJS.Timeout | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  #lastPrune = 0;

  constructor(options: OutboxRelayOptions) {
    this.#listen = options.listen === undefined ? options.sql : options.listen;
    this.#o = { pollIntervalMs: this.#listen ? 1_000 : POOLED_POLL_MS, batchSize: 500, maxAgeMs: 600_000, ...options };
  }

  /** Starts listening (where it may) and relays what is already queued. */
  async start(): Promise<void> {
    if (this.#listen) {
      const meta = await this.#listen.listen(
        OUTBOX_CHANNEL,
        () => this.kick(),
        () => this.kick(),
      );
      this.#unlisten = () => meta.unlisten();
    }
    this.#timer = setInterval(() => this.kick(), this.#o.pollIntervalMs);
    this.#timer.unref();
    this.kick();
  }

  /** Relays now (or right after the round in progress). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#round().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Resolves once everything committed before the call has been relayed (or a round failed). */
  async flush(): Promise<void> {
    await this.#running;
    this.kick();
    await this.#running;
  }

  metrics(): OutboxRelayMetrics {
    return { ...this.#m };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    await unlisten?.().catch(() => undefined);
  }

  async #round(): Promise<void> {
    try {
      while (!this.#stopped && (await this.#relayBatch()) === this.#o.batchSize);
    } catch (err) {
      this.#m.failedRounds++;
      this.#o.onError?.(err);
    }
    if (Date.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now();
      await this.#prune().catch((err: unknown) => this.#o.onError?.(err));
    }
  }

  #relayBatch(): Promise<number> {
    return this.#o.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; message: string }[]>`
        delete from invalidation_outbox
        where id in (select id from invalidation_outbox order by id limit ${this.#o.batchSize} for update skip locked)
        returning id, message`;
      rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      // A row this version cannot read is dropped: no redirector of this version could use it.
      const messages = rows.flatMap((row) => decodeInvalidation(row.message) ?? []);
      if (this.#o.purge) await this.#o.purge(messages);
      for (const message of messages) await this.#o.bus.publish(message);
      this.#m.relayed += rows.length;
      return rows.length;
    });
  }

  async #prune(): Promise<void> {
    const rows = await this.#o.sql`
      delete from invalidation_outbox where created_at < now() - make_interval(secs => ${this.#o.maxAgeMs / 1000}) returning id`;
    this.#m.pruned += rows.length;
  }
}
