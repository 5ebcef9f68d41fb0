// Invariant: the choice between embedded and server backends is made here, once, from config,
// and nowhere else: with REDIS_URL the bus and the rate limiter are Redis; without it the bus is
// Postgres LISTEN/NOTIFY (so the admin CLI reaches a running embedded server) and the limiter is
// in-memory. Domain code only ever sees the ports.
import { Redis } from 'ioredis';
import type { InvalidationBus } from '../bus/invalidation-bus.ts';
import { OutboxRelay } from '../bus/outbox-relay.ts';
import { PostgresInvalidationBus } from '../bus/postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from '../bus/redis-invalidation-bus.ts';
import type { CommonConfig } from '../config/config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.ts';

export interface Backends {
  db: Database;
  redis: Redis | null;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  close(): Promise<void>;
}

export async function openBackends(config: CommonConfig, log: (m: string) => void = () => {}, options: { relayOutbox?: boolean } = {}): Promise<Backends> {
  const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log });
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : null;
  const bus: InvalidationBus = redis ? new RedisInvalidationBus(redis, config.REDIS_PREFIX) : new PostgresInvalidationBus(db.sql);
  const rateLimiter: RateLimiter = redis ? new RedisRateLimiter(redis, config.REDIS_PREFIX) : new MemoryRateLimiter();
  const relay = options.relayOutbox ? new OutboxRelay({ sql: db.sql, bus, onError: (err) => log(`outbox relay: ${err instanceof Error ? err.message : String(err)}`) }) : null;
  await relay?.start();
  return {
    db,
    redis,
    bus,
    rateLimiter,
    close: async () => {
      await relay?.stop();
      await bus.close();
      await rateLimiter.close();
      redis?.disconnect();
      await db.close();
    },
  };
}
