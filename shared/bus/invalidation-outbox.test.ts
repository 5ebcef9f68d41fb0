// Invariant: the outbox contract runs on the embedded Postgres and on the machine's real one
// (when it answers), each in a database of its own; and a writer process killed right after its
// commit still has its invalidation delivered by a relay of another process.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase, postgresBackends } from '../../test/support/servers.ts';
import { seedOrg } from '../../test/support/seed.ts';
import type { Invalidation } from './invalidation-bus.ts';
import { invalidationOutboxContract } from './invalidation-outbox.contract.ts';
import { MemoryInvalidationBus } from './memory-invalidation-bus.ts';
import { OutboxRelay } from './outbox-relay.ts';

const ROOT = join(import.meta.dirname, '..', '..');

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  invalidationOutboxContract(backend.name, async () => {
    const db = await createTestDatabase(backend.adminUrl);
    return { sql: db.sql, cleanup: () => db.drop() };
  });
}

describe('a writer killed right after its commit', () => {
  it('still has its invalidation delivered, within a second, by a relay in another process', async () => {
    const db = await createTestDatabase(inject('embeddedPgUrl'));
    const bus = new MemoryInvalidationBus();
    const got: Invalidation[] = [];
    await bus.subscribe((m) => got.push(m));
    const relay = new OutboxRelay({ sql: db.sql, bus });
    await relay.start();
    try {
      const orgId = await seedOrg(db.sql, 'FREE');
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'support', 'commit-then-die.ts'), db.url, orgId, 'PRO'], {
        cwd: ROOT,
        stdio: 'ignore',
      });
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
      expect(signal).toBe('SIGKILL');
      const [row] = await db.sql<{ plan: string }[]>`select plan from organizations where id = ${orgId}`;
      expect(row?.plan).toBe('PRO');
      const t0 = Date.now();
      while (!got.some((m) => m.kind === 'org' && m.orgId === orgId) && Date.now() - t0 < 1_000) await new Promise((r) => setTimeout(r, 10));
      expect(got).toContainEqual({ kind: 'org', orgId });
    } finally {
      await relay.stop();
      await bus.close();
      await db.drop();
    }
  });
});
