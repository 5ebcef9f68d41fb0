import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, postgresBackends, type TestDatabase } from '../../test/support/servers.ts';
import { migrate, migrationFiles } from './migrate.ts';

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  describe(`migrations on ${backend.name}`, () => {
    let db: TestDatabase;
    afterAll(async () => db?.drop());

    it('applies every file once, in order, and a re-run is a no-op', async () => {
      db = await createTestDatabase(backend.adminUrl, false);
      expect(await migrate(db.sql)).toEqual(migrationFiles());
      expect(await migrate(db.sql)).toEqual([]);
      const [row] = await db.sql<{ n: string }[]>`select count(*)::text as n from schema_migrations`;
      expect(Number(row?.n)).toBe(migrationFiles().length);
    });

    it('keeps microseconds and answers in UTC', async () => {
      const [row] = await db.sql<{ t: string }[]>`select '2026-01-02 03:04:05.123456+02'::timestamptz as t`;
      expect(row!.t).toBe('2026-01-02 01:04:05.123456+00');
    });
  });
}
