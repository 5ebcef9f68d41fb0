// Invariant: Postgres is the server at `url` when one is given (a transaction pooler when `pooler`
// says so, with the primary's direct URL beside it for migrations and LISTEN), else the embedded
// cluster under DATA_DIR/postgres (started here, stopped when the database closes); either is
// migrated before it is handed out. A server that does not answer is a SetupError naming
// DATABASE_URL or DATABASE_DIRECT_URL (password redacted); whatever was opened is closed first.
import { join } from 'node:path';
import { DatabaseOpenError, openDatabase, type Database } from '../db/database.ts';
import { openEmbeddedPostgres } from '../db/embedded-postgres.ts';
import type { Logger } from '../log/logger.ts';
import { serverUnreachable } from './startup.ts';

export interface OpenedPostgres {
  db: Database;
  /** Where it lives, and what the embedded cluster wants the operator to know. */
  summary: string[];
}

export interface OpenPostgresOptions {
  url: string | undefined;
  /** DATABASE_POOLER: `transaction` when `url` is a transaction pooler. */
  pooler?: 'none' | 'transaction';
  /** DATABASE_DIRECT_URL: the primary past the pooler. */
  directUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  logger: Logger;
}

export async function openPostgres(o: OpenPostgresOptions): Promise<OpenedPostgres> {
  // The embedded cluster's own output (initdb, the postmaster) is for debugging.
  const embedded = o.url ? null : await openEmbeddedPostgres(o.dataDir, (m) => o.logger.debug(m));
  let db: Database;
  try {
    db = await openDatabase({
      url: o.url ?? embedded?.url ?? '',
      poolSize: o.poolSize,
      pooler: o.url ? o.pooler : 'none',
      directUrl: o.url ? o.directUrl : undefined,
      release: embedded?.release,
    });
  } catch (err) {
    await embedded?.release();
    const cause = err instanceof DatabaseOpenError ? err.cause : err;
    if (!o.url) throw cause;
    throw err instanceof DatabaseOpenError && err.url === 'directUrl' && o.directUrl
      ? serverUnreachable('DATABASE_DIRECT_URL', o.directUrl, cause)
      : serverUnreachable('DATABASE_URL', o.url, cause);
  }
  const where = o.url ? 'Postgres: DATABASE_URL' : `Postgres: embedded in ${join(o.dataDir, 'postgres')}`;
  return { db, summary: [where, ...(embedded?.notes ?? []).map((note) => `Note: ${note}`)] };
}
