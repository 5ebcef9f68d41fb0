// Invariant: the InvalidationBus contract runs against every adapter: in-process memory, Postgres
// LISTEN/NOTIFY on the embedded server (and the real one when it answers), a Redis stream on the
// real server and on the run's Redis Cluster when they answer. Each Postgres suite has its own database, each Redis suite its own
// prefix (hence its own channel); each `open()` gets its own connection, as another process would.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../db/database.ts';
import { connectTestRedis, deleteTestPrefix, redisTestTargets } from '../../test/support/redis-targets.ts';
import { createTestDatabase, postgresBackends, redisTestPrefix, uniqueName, type TestDatabase } from '../../test/support/servers.ts';
import { isCluster, type RedisClient } from '../redis/redis-client.ts';
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

for (const target of redisTestTargets()) {
  describe(`RedisInvalidationBus on ${target.name}`, () => {
    const prefix = redisTestPrefix();
    afterAll(async () => deleteTestPrefix(target, prefix));

    invalidationBusContract('redis', async (onError) => {
      const clients: RedisClient[] = [];
      const raw = await connectTestRedis(target);
      const stream = `${prefix}invalidations`;
      return {
        open: async () => {
          const client = await connectTestRedis(target);
          clients.push(client);
          const bus = new RedisInvalidationBus(client, prefix, { onError });
          expect(bus.channel).toBe(stream);
          return bus;
        },
        publishRaw: async (payload) => {
          await raw.xadd(stream, '*', 'm', payload);
        },
        cleanup: async () => {
          for (const c of [...clients, raw]) c.disconnect();
        },
      };
    });

    it('close() disconnects only its own reader connection', async () => {
      const client = await connectTestRedis(target);
      try {
        const bus = new RedisInvalidationBus(client, prefix);
        const got: unknown[] = [];
        await bus.subscribe((m) => got.push(m));
        await bus.close();
        expect(await client.ping()).toBe('PONG');
        await client.xadd(bus.channel, '*', 'm', JSON.stringify({ kind: 'org', orgId: 'o1' }));
        await new Promise((r) => setTimeout(r, 150));
        expect(got).toEqual([]);
      } finally {
        client.disconnect();
      }
    });

    it('a reader whose connection is killed reads on from where it was: what was published meanwhile arrives, with no resync', async () => {
      const client = await connectTestRedis(target);
      const admin = await connectTestRedis(target);
      try {
        const bus = new RedisInvalidationBus(client, prefix);
        const publisher = new RedisInvalidationBus(admin, prefix);
        const got: string[] = [];
        let resyncs = 0;
        await bus.subscribe(
          (m) => {
            if (m.kind === 'org') got.push(m.orgId);
          },
          () => resyncs++,
        );
        // Kill the bus's reader connection (on whichever master it reads from).
        const nodes = isCluster(admin) ? admin.nodes('master') : [admin];
        let killed = 0;
        for (const n of nodes) {
          const list = String(await n.call('CLIENT', 'LIST', 'TYPE', 'normal'));
          for (const line of list.split('\n').filter((l) => l.includes(` name=${bus.readerName} `))) {
            killed += Number(await n.call('CLIENT', 'KILL', 'ID', /\bid=(\d+)/.exec(line)?.[1] ?? '0'));
          }
        }
        expect(killed).toBeGreaterThan(0);
        await publisher.publish({ kind: 'org', orgId: 'while-down' });
        await publisher.publish({ kind: 'org', orgId: 'after' });
        const deadline = Date.now() + 3_000;
        while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        expect(got).toEqual(['while-down', 'after']);
        expect(resyncs).toBe(0);
        await bus.close();
        await publisher.close();
      } finally {
        client.disconnect();
        admin.disconnect();
      }
    });
  });
}
