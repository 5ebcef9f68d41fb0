// Invariant: the SharedCacheTier over Redis (a server or a Cluster), one namespace for the whole
// fleet, so an entry one redirector host loaded is a hit for every other. A Redis cache entry can
// never outlive an invalidation of its key: each key has a generation counter in the same hash
// slot (`…:{kind:id}` and `…:{kind:id}:gen`); a loader reads the generation together with the (missing) entry *before*
// it reads Postgres, and its fill is written only if the generation is still the one it read.
// Invalidation bumps the generation and deletes the entry in one script, so a fill computed from
// a pre-commit read either lands before the delete (and is deleted) or is refused. The outbox
// relay runs that invalidation before it publishes, so a message a host missed leaves nothing
// stale here; short TTLs are the last safety net. Keys are `${prefix}cache:${CACHE_FORMAT}:…`:
// the format changes only when the cached encoding does. Lookups of one event-loop turn share
// one read (mgetAcrossSlots).
import { BatchLoader } from './batch-loader.ts';
import { hashTag, mgetAcrossSlots, type RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { CachedEntry } from './cached-entry.ts';
import type { CacheLookup, SharedCacheTier } from './shared-cache-tier.ts';

/** The encoding of cached entities; a change of it is a new namespace (old entries are never read). */
export const CACHE_FORMAT = 'v1';

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

const entryKeyOf = (prefix: string, kind: string, id: string): string => `${prefix}cache:${CACHE_FORMAT}:${hashTag(`${kind}:${id}`)}`;
const generationKeyOf = (entryKey: string): string => `${entryKey}:gen`;

export class RedisCacheTier implements SharedCacheTier {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #lookups: BatchLoader<CacheLookup>;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#lookups = new BatchLoader(async (entryKeys) => {
      const values = await mgetAcrossSlots(this.#redis, [...entryKeys, ...entryKeys.map(generationKeyOf)]);
      const out = new Map<string, CacheLookup>();
      for (const [i, k] of entryKeys.entries()) out.set(k, { value: values[i] ?? null, generation: values[entryKeys.length + i] ?? '0' });
      return out;
    }, 200);
  }

  entryKey(kind: string, id: string): string {
    return entryKeyOf(this.#prefix, kind, id);
  }

  generationKey(kind: string, id: string): string {
    return generationKeyOf(this.entryKey(kind, id));
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
    await INVALIDATE.run(this.#redis, [this.entryKey(kind, id), this.generationKey(kind, id)], [GENERATION_TTL_MS]);
  }
}

/** Invalidates the named entries in the fleet's cache (the outbox relay, before it publishes). */
export async function invalidateEntries(redis: RedisClient, prefix: string, entries: readonly CachedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const tier = new RedisCacheTier(redis, prefix);
  await Promise.all(entries.map(({ kind, id }) => tier.invalidate(kind, id)));
}
