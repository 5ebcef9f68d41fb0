// Invariant: the UsageStore contract runs on the embedded Postgres and on the machine's real one
// (when it answers), each in a database of its own.
import { inject } from 'vitest';
import { createTestDatabase, postgresBackends, type TestDatabase } from '../../test/support/servers.ts';
import { seedOrg } from '../../test/support/seed.ts';
import { usageStoreContract } from './usage-store.contract.ts';
import { PostgresUsageStore } from './usage-store.ts';

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  let db: TestDatabase | null = null;
  const open = async (): Promise<TestDatabase> => (db ??= await createTestDatabase(backend.adminUrl));
  usageStoreContract(`postgres (${backend.name})`, {
    make: async () => new PostgresUsageStore((await open()).sql),
    newOrg: async () => seedOrg((await open()).sql, 'FREE'),
    close: async () => db?.drop(),
  });
}
