// Invariant: with REDIS_URL (a server) or REDIS_CLUSTER_NODES (a Redis Cluster's seeds), one
// ioredis client serves every Redis port of the process (bus, rate limiter, click counters, cache
// tier, worker registry, outbox purge), failing fast while Redis is down: every command, queued
// ones too, gives up after REDIS_COMMAND_TIMEOUT_MS (a cluster with no reachable master refuses at
// once) and callers degrade (insurance limiter, spool fallback, Postgres). A production entry
// starts only once it answers PING within SERVER_CHECK_MS, else a SetupError names the variable.
// Without Redis the same ports are Postgres LISTEN/NOTIFY (the bus, so the admin CLI and the
// relay reach a running embedded server) and process memory (limits, counters); there is no
// cache tier, no worker registry and no purge.
import { Cluster, Redis } from 'ioredis';
import type { InvalidationBus, Invalidation } from '../bus/invalidation-bus.ts';
import { PostgresInvalidationBus } from '../bus/postgres-invalidation-bus.ts';
import { RedisInvalidationBus } from '../bus/redis-invalidation-bus.ts';
import { cachedEntryOf } from '../cache/cached-entry.ts';
import { invalidateEntries, RedisCacheTier } from '../cache/redis-cache-tier.ts';
import type { SharedCacheTier } from '../cache/shared-cache-tier.ts';
import type { RedisNode } from '../config/config.ts';
import type { Sql } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { InsuredRateLimiter } from '../limits/insured-rate-limiter.ts';
import { MemoryRateLimiter } from '../limits/memory-rate-limiter.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { RedisRateLimiter } from '../limits/redis-rate-limiter.ts';
import type { ClickCounterStore } from '../quotas/click-counter-store.ts';
import type { WorkerRegistry } from '../quotas/live-workers.ts';
import { MemoryClickCounterStore } from '../quotas/memory-click-counter-store.ts';
import { RedisClickCounterStore } from '../quotas/redis-click-counter-store.ts';
import type { LinkClickStore } from '../quotas/link-click-counter.ts';
import { MemoryLinkClickCounter } from '../quotas/memory-link-click-counter.ts';
import { RedisLinkClickCounter } from '../quotas/redis-link-click-counter.ts';
import { RedisWorkerRegistry } from '../quotas/redis-worker-registry.ts';
import type { RedisClient } from '../redis/redis-client.ts';
import { SERVER_CHECK_MS, serverUnreachable } from './startup.ts';

export const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_MAX_RECONNECT_DELAY_MS = 500;

export interface RedisPorts {
  /** The client, for the analytics spool; null without Redis. */
  redis: RedisClient | null;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clickCounter: ClickCounterStore;
  /** Per-link click counters of links with maxClicks (link-click-counter.ts). */
  linkClicks: LinkClickStore;
  /** The fleet's shared cache tier; null without Redis. */
  cacheTier: SharedCacheTier | null;
  /** The fleet's registry of live redirector workers (quota shares); null without Redis. */
  workerRegistry: WorkerRegistry | null;
  /** Drops what the messages name from the shared cache tier (the outbox relay, before it publishes); none without Redis. */
  purge: ((messages: readonly Invalidation[]) => Promise<void>) | undefined;
  /** Stops the bus and the limiter; the client stays until disconnect() (the analytics spool closes in between). */
  close(): Promise<void>;
  disconnect(): void;
}

/** Where Redis is: a server's URL, a cluster's seed nodes, or nowhere (embedded). */
export type RedisTarget = { url: string } | { clusterNodes: readonly RedisNode[] } | null;

export interface OpenRedisOptions {
  target: RedisTarget;
  prefix: string;
  /** The Postgres that carries the bus without Redis. */
  sql: Sql;
  /** A production entry: Redis must answer at start. */
  required: boolean;
  logger: Logger;
}

/** The variable that names the target, for messages. */
export function redisVariable(target: RedisTarget): string {
  return target !== null && 'clusterNodes' in target ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
}

/** A client for `target` with the service's settings (fail fast, reconnect quickly). */
export function connectRedis(target: Exclude<RedisTarget, null>): RedisClient {
  const common = { commandTimeout: REDIS_COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1, connectTimeout: 2_000 };
  // Reconnect within half a second of Redis returning.
  const retryStrategy = (attempt: number) => Math.min(attempt * 100, REDIS_MAX_RECONNECT_DELAY_MS);
  if ('url' in target) return new Redis(target.url, { ...common, enableOfflineQueue: true, retryStrategy });
  // A cluster client queues nothing while no master answers (its queue would wait for the
  // cluster, past every command timeout): commands fail at once instead, as callers expect.
  return new Cluster([...target.clusterNodes], {
    redisOptions: common,
    clusterRetryStrategy: retryStrategy,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    slotsRefreshTimeout: 2_000,
  });
}

export async function openRedis(o: OpenRedisOptions): Promise<RedisPorts> {
  const redis = o.target ? connectRedis(o.target) : null;
  let redisError: unknown = null;
  redis?.on('error', (err) => {
    redisError = err;
  }); // reported by the calls that fail
  // A cluster client takes no command before it has read the slot map: wait for it even where
  // Redis is optional at start (a single server's client queues meanwhile).
  if (redis && o.target && (o.required || 'clusterNodes' in o.target)) await answersPing(redis, o.target, () => redisError);
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
    cacheTier: redis ? new RedisCacheTier(redis, prefix) : null,
    workerRegistry: redis ? new RedisWorkerRegistry(redis, prefix) : null,
    purge: redis
      ? (messages) =>
          invalidateEntries(
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

/** Resolves once Redis answers PING; after SERVER_CHECK_MS disconnects and throws the SetupError naming the target's variable. */
async function answersPing(redis: RedisClient, target: Exclude<RedisTarget, null>, lastError: () => unknown): Promise<void> {
  const deadline = Date.now() + SERVER_CHECK_MS;
  for (;;) {
    try {
      await redis.ping();
      return;
    } catch (err) {
      if (Date.now() >= deadline) {
        redis.disconnect();
        const where = 'url' in target ? target.url : target.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',');
        throw serverUnreachable(redisVariable(target), where, lastError() ?? err);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
