// Invariant: migrations are plain SQL files applied in file-name order, each once, inside one
// transaction that holds an advisory lock, so concurrent starters (API, redirector, CLI) never
// race and a re-run is a no-op.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './sql.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 7_311_842_001;

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort();
}

export async function migrate(sql: Sql): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
    await tx`create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx<{ version: string }[]>`select version from schema_migrations`).map((r) => r.version));
    for (const file of migrationFiles()) {
      if (done.has(file)) continue;
      await tx.unsafe(readFileSync(join(MIGRATIONS_DIR, file), 'utf8'));
      await tx`insert into schema_migrations (version) values (${file})`;
      applied.push(file);
    }
  });
  return applied;
}
