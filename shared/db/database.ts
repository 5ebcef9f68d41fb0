// Invariant: every process talks to Postgres through this one `postgres` client setup, whether
// the server is embedded or external. Sessions run in UTC and timestamptz values stay text, so
// microseconds are never lost to a JS Date. A connection that fails while the driver still sets
// it up never ends the process: the query that opened it fails on its own (see
// survivesDroppedSetupQueries).
import postgres from 'postgres';
import { isDependencyUnreachable } from '../net/dependency-unreachable.ts';
import { migrate } from './migrate.ts';
import type { Sql } from './sql.ts';

export type { Sql, Tx } from './sql.ts';

export interface Database {
  sql: Sql;
  url: string;
  /** A client that may LISTEN (session state): `sql` itself unless DATABASE_URL is a transaction pooler; then the direct URL's, or null. */
  listenSql: Sql | null;
  close(): Promise<void>;
}

/** Seconds to establish a connection before the request fails as 'dependency unavailable'. */
export const CONNECT_TIMEOUT_SECONDS = 2;

/**
 * postgres.js runs its own first query on each new connection (the array types) and drops that
 * query's promise: when the connection fails during it, the rejection is unhandled and would end
 * the process, while the query that opened the connection fails with the same error to its
 * caller. Such a rejection (a query's connection failure) is ignored here; every other unhandled
 * rejection still ends the process, as without a handler.
 */
let droppedSetupQueriesSurvived = false;
function survivesDroppedSetupQueries(): void {
  if (droppedSetupQueriesSurvived) return;
  droppedSetupQueriesSurvived = true;
  process.on('unhandledRejection', (reason) => {
    if (reason instanceof Error && 'query' in reason && isDependencyUnreachable(reason)) return;
    throw reason;
  });
}

/** Through a transaction pooler (DATABASE_POOLER=transaction) no statement is prepared: a pooler hands each transaction any server connection. */
export function connect(url: string, max = 10, o: { prepare?: boolean } = {}): Sql {
  survivesDroppedSetupQueries();
  return postgres(url, {
    max,
    prepare: o.prepare ?? true,
    // A server that does not answer fails a request within seconds (503 SML006), never a 30 s hang.
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    onnotice: () => {},
    connection: { TimeZone: 'UTC', application_name: 'shortlink' },
    types: {
      // Keep timestamptz as its text form; formatPgInstant turns it into an ISO instant.
      instant: { to: 1184, from: [1184, 1114], serialize: (v: string) => v, parse: (v: string) => v },
    },
  }) as unknown as Sql;
}

/** Opening failed; `url` names the option whose server did not do its part. */
export class DatabaseOpenError extends Error {
  constructor(
    readonly url: 'url' | 'directUrl',
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'DatabaseOpenError';
  }
}

export interface OpenDatabaseOptions {
  url: string;
  poolSize?: number;
  /** `transaction`: `url` is a transaction pooler: no prepared statements, no LISTEN through it. */
  pooler?: 'none' | 'transaction';
  /** The primary past the pooler (DATABASE_DIRECT_URL): migrations and LISTEN use it. */
  directUrl?: string | undefined;
  /** Runs after the pool ends (the composition root stops an embedded cluster it started). */
  release?: () => Promise<void>;
}

/**
 * Connects to `url` and migrates it (through the direct URL when one is given); close() ends the
 * pools, then runs `release`. Behind a transaction pooler without a direct URL nothing LISTENs.
 */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const pooled = opts.pooler === 'transaction';
  const sql = connect(opts.url, opts.poolSize, { prepare: !pooled });
  // LISTEN holds a connection of its own (postgres.js opens one per client for it).
  const direct = opts.directUrl ? connect(opts.directUrl, 1) : null;
  const release = opts.release ?? (async () => {});
  const end = async (): Promise<void> => {
    await Promise.all([sql.end({ timeout: 5 }), direct?.end({ timeout: 5 })]);
  };
  let step: 'url' | 'directUrl' = direct ? 'directUrl' : 'url';
  try {
    await migrate(direct ?? sql);
    step = 'url';
    if (direct) await sql`select 1`;
  } catch (err) {
    await Promise.all([sql.end({ timeout: 1 }), direct?.end({ timeout: 1 })]);
    await release();
    throw new DatabaseOpenError(step, err);
  }
  return {
    sql,
    url: opts.url,
    listenSql: direct ?? (pooled ? null : sql),
    close: async () => {
      await end();
      await release();
    },
  };
}
