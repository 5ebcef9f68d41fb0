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

export function connect(url: string, max = 10): Sql {
  survivesDroppedSetupQueries();
  return postgres(url, {
    max,
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

export interface OpenDatabaseOptions {
  url: string;
  poolSize?: number;
  /** Runs after the pool ends (the composition root stops an embedded cluster it started). */
  release?: () => Promise<void>;
}

/** Connects to `url` and migrates it; close() ends the pool, then runs `release`. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const sql = connect(opts.url, opts.poolSize);
  const release = opts.release ?? (async () => {});
  try {
    await migrate(sql);
  } catch (err) {
    await sql.end({ timeout: 1 });
    await release();
    throw err;
  }
  return {
    sql,
    url: opts.url,
    close: async () => {
      await sql.end({ timeout: 5 });
      await release();
    },
  };
}
