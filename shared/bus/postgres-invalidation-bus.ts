// Invariant: messages travel as JSON through Postgres LISTEN/NOTIFY on one channel (default
// `shortlink_invalidate`), so every process connected to the same database hears every write.
// This adapter exists for the embedded single-process mode, which runs without Redis: the admin
// CLI is a separate process that writes through the same (embedded) Postgres and must still reach
// the running server's caches. Receiving uses postgres.js's dedicated LISTEN connection of the
// borrowed `sql` (it re-listens after a reconnect); this bus never ends `sql`, close() only stops
// its own listening. A payload that is not a valid Invalidation is reported and dropped, never
// thrown. Delivery is at-most-once (notifications sent while reconnecting are lost).
import type { Sql } from '../db/database.ts';
import { decodeInvalidation, encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler } from './invalidation-bus.ts';
import { HandlerSet, reportToConsole, type BusErrorReporter } from './handler-set.ts';

export const DEFAULT_PG_INVALIDATION_CHANNEL = 'shortlink_invalidate';

export interface PostgresInvalidationBusOptions {
  /** Told about malformed messages and throwing handlers. */
  onError?: BusErrorReporter;
}

/**
 * The channel for a deployment name: lower-case letters, digits and `_` (anything else becomes
 * `_`), `_invalidate` appended, cut to Postgres's 63-byte identifier limit. `shortlink` gives
 * `shortlink_invalidate`.
 */
export function pgInvalidationChannel(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'shortlink';
  return `${base.slice(0, 63 - '_invalidate'.length)}_invalidate`;
}

export class PostgresInvalidationBus implements InvalidationBus {
  readonly channel: string;
  readonly #sql: Sql;
  readonly #handlers: HandlerSet;
  readonly #onError: BusErrorReporter;
  #listening: Promise<() => Promise<void>> | null = null;
  #closed = false;

  /**
   * @param sql a client the caller owns and ends.
   * @param channel a channel name as `pgInvalidationChannel` makes them.
   */
  constructor(sql: Sql, channel: string = DEFAULT_PG_INVALIDATION_CHANNEL, options: PostgresInvalidationBusOptions = {}) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError(`invalid Postgres channel name: ${JSON.stringify(channel)}`);
    }
    this.#sql = sql;
    this.channel = channel;
    this.#onError = options.onError ?? reportToConsole;
    this.#handlers = new HandlerSet(this.#onError);
  }

  async publish(message: Invalidation): Promise<void> {
    await this.#sql.notify(this.channel, encodeInvalidation(message));
  }

  async subscribe(handler: InvalidationHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('invalidation bus is closed');
    await this.#listen();
    const remove = this.#handlers.add(handler);
    return async () => remove();
  }

  /** Stops this bus's LISTEN registration; `sql` stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    const listening = this.#listening;
    this.#listening = null;
    if (!listening) return;
    const unlisten = await listening.catch(() => null);
    await unlisten?.();
  }

  #listen(): Promise<() => Promise<void>> {
    this.#listening ??= this.#sql
      .listen(this.channel, (payload) => this.#receive(payload))
      .then((meta) => () => meta.unlisten())
      .catch((err: unknown) => {
        this.#listening = null;
        throw err;
      });
    return this.#listening;
  }

  #receive(payload: string): void {
    const message = decodeInvalidation(payload);
    if (message) this.#handlers.deliver(message);
    else this.#onError(new Error(`ignored malformed invalidation on ${this.channel}: ${payload.slice(0, 200)}`));
  }
}
