// Invariant: Postgres is the server at `url` when one is given, else the embedded cluster under
// DATA_DIR/postgres (started here, stopped when the database closes); either is migrated before
// it is handed out. A server that does not answer is a SetupError naming DATABASE_URL (password
// redacted); whatever was opened is closed first.
import { join } from 'node:path';
import { openDatabase, type Database } from '../db/database.ts';
import { openEmbeddedPostgres } from '../db/embedded-postgres.ts';
import type { Logger } from '../log/logger.ts';
import { serverUnreachable } from './startup.ts';

export interface OpenedPostgres {
  db: Database;
  /** Where it lives, and what the embedded cluster wants the operator to know. */
  summary: string[];
}

export async function openPostgres(o: { url: string | undefined; dataDir: string; poolSize?: number; logger: Logger }): Promise<OpenedPostgres> {
  // The embedded cluster's own output (initdb, the postmaster) is for debugging.
  const embedded = o.url ? null : await openEmbeddedPostgres(o.dataDir, (m) => o.logger.debug(m));
  let db: Database;
  try {
    db = await openDatabase({ url: o.url ?? embedded?.url ?? '', poolSize: o.poolSize, release: embedded?.release });
  } catch (err) {
    await embedded?.release();
    throw o.url ? serverUnreachable('DATABASE_URL', o.url, err) : err;
  }
  const where = o.url ? 'Postgres: DATABASE_URL' : `Postgres: embedded in ${join(o.dataDir, 'postgres')}`;
  return { db, summary: [where, ...(embedded?.notes ?? []).map((note) => `Note: ${note}`)] };
}
