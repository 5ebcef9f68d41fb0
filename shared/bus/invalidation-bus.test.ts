// Invariant: the InvalidationBus contract runs against every adapter: in-process memory, Postgres
// LISTEN/NOTIFY on the embedded server (and the real one when it answers), Redis pub/sub on the
// real server when it answers. Each Postgres suite has its own database, each Redis suite its own
// prefix (hence its own channel); each `open()` gets its own connection, as another process would.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../db/database.ts';
import { createTestDatabase, deleteRedisPrefix, postgresBackends, redisTestPrefix, uniqueName, type TestDatabase } from '../../test/support/servers.ts';
import { invalidationBusContract } from './invalidation-bus.contract.ts';
import { MemoryInvalidationBus } from './memory-invalidation-bus.ts';
import { DEFAULT_PG_INVALIDATION_CHANNEL, PostgresInvalidationBus, pgInvalidationChannel } from './postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from './redis-invalidation-bus.ts';

invalidationBusContract(
  'memory',
  async (onError) => {
    const bus = new MemoryInvalidationBus({ onError });
    return { open: async () => bus, publishRaw: null, cleanup: async () => bus.close() };
  },
  { wire: false },
);

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  describe(`PostgresInvalidationBus on ${backend.name}`, () => {
    invalidationBusContract('postgres', async (onError) => {
      const db = await createTestDatabase(backend.adminUrl, false);
      const channel = pgInvalidationChannel(uniqueName('test'));
      const clients: Sql[] = [];
      return {
        open: async () => {
          const sql = connect(db.url, 2);
          clients.push(sql);
          return new PostgresInvalidationBus(sql, channel, { onError });
        },
        publishRaw: async (payload) => {
          await db.sql.notify(channel, payload);
        },
        cleanup: async () => {
          await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
          await db.drop();
        },
      };
    });

    describe('ownership', () => {
      let db: TestDatabase;
      beforeAll(async () => {
        db = await createTestDatabase(backend.adminUrl, false);
      });
      afterAll(async () => db?.drop());

      it('close() stops listening but leaves the borrowed sql usable', async () => {
        const bus = new PostgresInvalidationBus(db.sql);
        expect(bus.channel).toBe(DEFAULT_PG_INVALIDATION_CHANNEL);
        const got: unknown[] = [];
        await bus.subscribe((m) => got.push(m));
        await bus.close();
        const [row] = await db.sql<{ n: number }[]>`select 1 as n`;
        expect(row?.n).toBe(1);
        await db.sql.notify(bus.channel, JSON.stringify({ kind: 'org', orgId: 'o1' }));
        await new Promise((r) => setTimeout(r, 150));
        expect(got).toEqual([]);
        await expect(bus.subscribe(() => {})).rejects.toThrow(/closed/);
      });
    });
  });
}

describe('pgInvalidationChannel', () => {
  it('derives a safe Postgres channel name from a deployment name', () => {
    expect(pgInvalidationChannel('shortlink')).toBe('shortlink_invalidate');
    expect(pgInvalidationChannel('Shortlink:Prod')).toBe('shortlink_prod_invalidate');
    expect(pgInvalidationChannel('x'.repeat(100))).toHaveLength(63);
    expect(() => new PostgresInvalidationBus(connect('postgres://unused/x', 1), 'Bad-Name')).toThrow(RangeError);
  });
});

const redisUrl = inject('realRedisUrl');

describe.skipIf(!redisUrl)('RedisInvalidationBus on 127.0.0.1:6379', () => {
  const url = redisUrl ?? '';
  const prefix = redisTestPrefix();
  afterAll(async () => deleteRedisPrefix(url, prefix));

  invalidationBusContract('redis', async (onError) => {
    const clients: Redis[] = [];
    const raw = new Redis(url);
    const channel = `${prefix}invalidate`;
    return {
      open: async () => {
        const client = new Redis(url);
        clients.push(client);
        const bus = new RedisInvalidationBus(client, prefix, { onError });
        expect(bus.channel).toBe(channel);
        return bus;
      },
      publishRaw: async (payload) => {
        await raw.publish(channel, payload);
      },
      cleanup: async () => {
        for (const c of [...clients, raw]) c.disconnect();
      },
    };
  });

  it('close() disconnects only its own subscriber connection', async () => {
    const client = new Redis(url);
    try {
      const bus = new RedisInvalidationBus(client, prefix);
      const got: unknown[] = [];
      await bus.subscribe((m) => got.push(m));
      await bus.close();
      expect(await client.ping()).toBe('PONG');
      await client.publish(bus.channel, JSON.stringify({ kind: 'org', orgId: 'o1' }));
      await new Promise((r) => setTimeout(r, 150));
      expect(got).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});
