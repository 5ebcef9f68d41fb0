// Invariant: with a Redis URL, one ioredis client serves every Redis port of the process (bus,
// rate limiter, click counter, cache tier, outbox purge), failing fast while Redis is down: every
// command, queued ones too, gives up after REDIS_COMMAND_TIMEOUT_MS and callers degrade
// (insurance limiter, spool fallback, Postgres). A production entry starts only once it answers
// PING within SERVER_CHECK_MS, else a SetupError names REDIS_URL. Without Redis the same ports
// are Postgres LISTEN/NOTIFY (the bus, so the admin CLI and the relay reach a running embedded
// server) and process memory (limits, counters); there is no cache tier and no purge.
import { Redis } from 'ioredis';
import type { InvalidationBus, Invalidation } from '../bus/invalidation-bus.ts';
import { PostgresInvalidationBus } from '../bus/postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from '../bus/redis-invalidation-bus.ts';
import { cachedEntryOf } from '../cache/cached-entry.ts';
import { bumpCacheEpoch, currentCacheEpoch, invalidateRecentEpochs, RedisCacheTier } from '../cache/redis-cache-tier.ts';
import type { SharedCacheTier } from '../cache/shared-cache-tier.ts';
import type { Sql } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { InsuredRateLimiter } from '../limits/insured-rate-limiter.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.ts';
import type { ClickCounterStore } from '../quotas/click-counter-store.ts';
import { MemoryClickCounterStore } from '../quotas/memory-click-counter-store.ts';
import { RedisClickCounterStore } from '../quotas/redis-click-counter-store.ts';
import type { LinkClickStore } from '../quotas/link-click-counter.ts';
import { MemoryLinkClickCounter } from '../quotas/memory-link-click-counter.ts';
import { RedisLinkClickCounter } from '../quotas/redis-link-click-counter.ts';
import { SERVER_CHECK_MS, serverUnreachable } from './startup.ts';

export const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_MAX_RECONNECT_DELAY_MS = 500;

export interface RedisPorts {
  /** The client, for the analytics spool; null without Redis. */
  redis: Redis | null;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clickCounter: ClickCounterStore;
  /** Per-link click counters of links with maxClicks (link-click-counter.ts). */
  linkClicks: LinkClickStore;
  /** The shared cache tier of `epoch` (default: the current one); null without Redis. */
  cacheTier(epoch?: string): Promise<SharedCacheTier | null>;
  /** Starts a fresh cache epoch; null without Redis. */
  startCacheEpoch(): Promise<string | null>;
  /** Drops what the messages name from the shared cache tier (the outbox relay, before it publishes); none without Redis. */
  purge: ((messages: readonly Invalidation[]) => Promise<void>) | undefined;
  /** Stops the bus and the limiter; the client stays until disconnect() (the analytics spool closes in between). */
  close(): Promise<void>;
  disconnect(): void;
}

export interface OpenRedisOptions {
  url: string | undefined;
  prefix: string;
  /** The Postgres that carries the bus without Redis. */
  sql: Sql;
  /** A production entry: Redis must answer at start. */
  required: boolean;
  logger: Logger;
}

export async function openRedis(o: OpenRedisOptions): Promise<RedisPorts> {
  const redis = o.url
    ? new Redis(o.url, {
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        connectTimeout: 2_000,
        // Reconnect within half a second of Redis returning (the bus resyncs on reconnect).
        retryStrategy: (attempt: number) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS),
      })
    : null;
  let redisError: unknown = null;
  redis?.on('error', (err) => {
    redisError = err;
  }); // reported by the calls that fail
  if (redis && o.required) await answersPing(redis, o.url ?? '', () => redisError);
  const { prefix } = o;
  // A handler that threw or a malformed message is the process log's business, not the console's.
  const busOptions = { onError: (err: Error) => o.logger.warn({ err }, 'invalidation bus') };
  const bus: InvalidationBus = redis ? new RedisInvalidationBus(redis, prefix, busOptions) : new PostgresInvalidationBus(o.sql, undefined, busOptions);
  const rateLimiter: RateLimiter = redis
    ? new InsuredRateLimiter({
        primary: new RedisRateLimiter(redis, prefix),
        insurance: new MemoryRateLimiter(),
        onSwitch: (insured, cause) =>
          insured
            ? o.logger.warn({ err: cause }, 'rate limits: Redis unreachable; limiting in this process until it answers')
            : o.logger.info('rate limits: Redis answers again'),
      })
    : new MemoryRateLimiter();
  return {
    redis,
    bus,
    rateLimiter,
    clickCounter: redis ? new RedisClickCounterStore(redis, prefix) : new MemoryClickCounterStore(),
    linkClicks: redis ? new RedisLinkClickCounter(redis, prefix) : new MemoryLinkClickCounter(),
    cacheTier: async (epoch) => (redis ? new RedisCacheTier(redis, prefix, epoch ?? (await currentCacheEpoch(redis, prefix))) : null),
    startCacheEpoch: async () => (redis ? bumpCacheEpoch(redis, prefix) : null),
    purge: redis
      ? (messages) =>
          invalidateRecentEpochs(
            redis,
            prefix,
            messages.flatMap((m) => cachedEntryOf(m) ?? []),
          )
      : undefined,
    close: async () => {
      await bus.close();
      await rateLimiter.close();
    },
    disconnect: () => redis?.disconnect(),
  };
}

/** Resolves once Redis answers PING; after SERVER_CHECK_MS disconnects and throws the SetupError naming REDIS_URL. */
async function answersPing(redis: Redis, url: string, lastError: () => unknown): Promise<void> {
  const deadline = Date.now() + SERVER_CHECK_MS;
  for (;;) {
    try {
      await redis.ping();
      return;
    } catch (err) {
      if (Date.now() >= deadline) {
        redis.disconnect();
        throw serverUnreachable('REDIS_URL', url, lastError() ?? err);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
