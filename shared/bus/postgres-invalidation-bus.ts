// Invariant: messages travel as JSON through Postgres LISTEN/NOTIFY on one channel (default
// `shortlink_invalidate`), so every process connected to the same database hears every write.
// This adapter exists for the embedded single-process mode, which runs without Redis: the admin
// CLI is a separate process that writes through the same (embedded) Postgres and must still reach
// the running server's caches. Receiving uses postgres.js's dedicated LISTEN connection of the
// borrowed `sql` (it re-listens after a reconnect); this bus never ends `sql`, close() only stops
// its own listening. A payload that is not a valid Invalidation is reported and dropped, never
// thrown. Delivery is at-most-once (notifications sent while reconnecting are lost).
import type { Sql } from '../db/database.ts';
import type { BusErrorReporter } from './handler-set.ts';
import { WireInvalidationBus, type StopListening } from './wire-invalidation-bus.ts';

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
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'shortlink';
  return `${base.slice(0, 63 - '_invalidate'.length)}_invalidate`;
}

export class PostgresInvalidationBus extends WireInvalidationBus {
  readonly channel: string;
  readonly #sql: Sql;

  /**
   * @param sql a client the caller owns and ends.
   * @param channel a channel name as `pgInvalidationChannel` makes them.
   */
  constructor(sql: Sql, channel: string = DEFAULT_PG_INVALIDATION_CHANNEL, options: PostgresInvalidationBusOptions = {}) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError(`invalid Postgres channel name: ${JSON.stringify(channel)}`);
    }
    super(options.onError);
    this.#sql = sql;
    this.channel = channel;
  }

  protected async send(payload: string): Promise<void> {
    await this.#sql.notify(this.channel, payload);
  }

  /** postgres.js's dedicated LISTEN connection of the borrowed `sql`; stopping unlistens, `sql` stays open. */
  protected async listen(receive: (payload: string) => void, resync: () => void): Promise<StopListening> {
    let listens = 0;
    // postgres.js calls onlisten on every (re)LISTEN: each after the first follows a lost connection.
    const meta = await this.#sql.listen(this.channel, receive, () => {
      if (++listens > 1) resync();
    });
    return () => meta.unlisten();
  }
}
