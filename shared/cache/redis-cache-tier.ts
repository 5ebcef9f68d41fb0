// Invariant: the SharedCacheTier over Redis. A Redis cache entry can never outlive an invalidation of its key. Each key has a
// generation counter; a loader reads the generation together with the (missing) entry *before*
// it reads Postgres, and its fill is written only if the generation is still the one it read.
// Invalidation bumps the generation and deletes the entry in one script, so a fill computed from
// a pre-commit read either lands before the delete (and is deleted) or is refused. Entries carry
// short TTLs as the safety net for lost bus messages. Keys live under
// `${prefix}rc:${epoch}:`; a redirector cluster starts a new epoch, so entries written before
// its start (possibly missing invalidations published while nothing listened) are never read.
// The outbox relay also invalidates in the recent epochs before it publishes, so a message every
// subscriber missed (all reconnecting) leaves no stale entry here either.
// Lookups of one event-loop turn share one MGET.
import type { Redis } from 'ioredis';
import { BatchLoader } from './batch-loader.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { CachedEntry } from './cached-entry.ts';
import type { CacheLookup, SharedCacheTier } from './shared-cache-tier.ts';

const FILL = new RedisScript(`
local gen = redis.call('GET', KEYS[2]) or '0'
if gen == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`);

const INVALIDATE = new RedisScript(`
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1`);

/** Generation keys must outlive the slowest Postgres load by far. */
const GENERATION_TTL_MS = 3_600_000;

const epochBase = (prefix: string, epoch: string): string => `${prefix}rc:${epoch}:`;
const entryKeyIn = (base: string, kind: string, id: string): string => `${base}${kind}:${id}`;
const generationKeyIn = (base: string, kind: string, id: string): string => `${base}gen:${kind}:${id}`;

async function invalidateIn(redis: Redis, base: string, kind: string, id: string): Promise<void> {
  await INVALIDATE.run(redis, [entryKeyIn(base, kind, id), generationKeyIn(base, kind, id)], [GENERATION_TTL_MS]);
}

export class RedisCacheTier implements SharedCacheTier {
  readonly #redis: Redis;
  readonly #base: string;
  readonly #lookups: BatchLoader<CacheLookup>;

  constructor(redis: Redis, prefix: string, epoch: string) {
    this.#redis = redis;
    this.#base = epochBase(prefix, epoch);
    this.#lookups = new BatchLoader(async (entryKeys) => {
      const generationKeys = entryKeys.map((k) => `${this.#base}gen:${k.slice(this.#base.length)}`);
      const values = await this.#redis.mget(...entryKeys, ...generationKeys);
      const out = new Map<string, CacheLookup>();
      for (const [i, k] of entryKeys.entries()) out.set(k, { value: values[i] ?? null, generation: values[entryKeys.length + i] ?? '0' });
      return out;
    }, 200);
  }

  entryKey(kind: string, id: string): string {
    return entryKeyIn(this.#base, kind, id);
  }

  generationKey(kind: string, id: string): string {
    return generationKeyIn(this.#base, kind, id);
  }

  async lookup(kind: string, id: string): Promise<CacheLookup> {
    return (await this.#lookups.load(this.entryKey(kind, id))) ?? { value: null, generation: '0' };
  }

  /** Writes the entry unless the key was invalidated since `generation` was read. */
  async fill(kind: string, id: string, generation: string, encoded: string, ttlMs: number): Promise<boolean> {
    const r = await FILL.run(this.#redis, [this.entryKey(kind, id), this.generationKey(kind, id)], [generation, encoded, Math.max(1, Math.round(ttlMs))]);
    return r === 1;
  }

  async invalidate(kind: string, id: string): Promise<void> {
    await invalidateIn(this.#redis, this.#base, kind, id);
  }
}

/**
 * Invalidates entries in the current cache epoch and the one before it (a rolling restart runs the
 * old cluster beside the new one for a while). The outbox relay calls it before it publishes: an
 * entry written before a change then never outlives the change in Redis, even when every
 * subscriber missed the message while it reconnected (a resync clears only the in-process tier).
 */
export async function invalidateRecentEpochs(redis: Redis, prefix: string, entries: readonly CachedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const current = Number(await currentCacheEpoch(redis, prefix));
  const epochs = current > 0 ? [current, current - 1] : [current];
  await Promise.all(
    epochs.flatMap((epoch) => {
      const base = epochBase(prefix, String(epoch));
      return entries.map(({ kind, id }) => invalidateIn(redis, base, kind, id));
    }),
  );
}

/** The cache epoch a cluster uses; `bumpCacheEpoch` starts a new one (the cluster primary, once). */
export async function bumpCacheEpoch(redis: Redis, prefix: string): Promise<string> {
  return String(await redis.incr(`${prefix}rc:epoch`));
}

export async function currentCacheEpoch(redis: Redis, prefix: string): Promise<string> {
  return (await redis.get(`${prefix}rc:epoch`)) ?? '0';
}
