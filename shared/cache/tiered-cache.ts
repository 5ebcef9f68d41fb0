// Invariant: one entity kind is read through LRU → Redis → Postgres, and absences are cached too
// (shorter TTL). Concurrent misses of one key share a single load (lru-cache fetchMethod, or an
// in-flight map when the LRU tier is disabled). An LRU hit is answered synchronously by peek()
// with no I/O. invalidate() first bumps/deletes the Redis entry, then drops the LRU entry; a load
// still in flight at that moment is aborted by the LRU and retried, so nothing read before the
// invalidation is kept afterwards.
import { LRUCache } from 'lru-cache';
import type { EntityKind } from '../../redirector/cached-entities.ts';
import { ABSENT_ENCODING, type RedisCacheTier } from './redis-cache-tier.ts';

export type CacheTier = 'lru' | 'redis' | 'postgres';

const ABSENT: { readonly absent: true } = Object.freeze({ absent: true as const });
type Slot<R> = R | typeof ABSENT;

export interface TieredCacheOptions<D, R extends object> {
  kind: EntityKind;
  /** LRU entries; 0 disables the in-process tier. */
  lruEntries: number;
  /** Optional byte budget for the LRU (with sizeOf). */
  lruMaxBytes?: number;
  sizeOf?: (record: R) => number;
  lruTtlMs: number;
  negativeLruTtlMs: number;
  redis: RedisCacheTier | null;
  redisTtlMs: number;
  negativeRedisTtlMs: number;
  load: (id: string) => Promise<D | null>;
  hydrate: (data: D) => R;
  /** Incremented by the tier that answered each lookup. */
  hits: Record<CacheTier, number>;
  onError: (err: unknown) => void;
}

interface Loaded<R> {
  record: R | null;
}

const MAX_ABORTED_RETRIES = 3;

export class TieredCache<D, R extends object> {
  readonly #o: TieredCacheOptions<D, R>;
  readonly #lru: LRUCache<string, Slot<R>> | null;
  readonly #inflight = new Map<string, Promise<R | null>>();

  constructor(options: TieredCacheOptions<D, R>) {
    this.#o = options;
    const sizeOf = options.sizeOf;
    this.#lru =
      options.lruEntries > 0
        ? new LRUCache<string, Slot<R>>({
            max: options.lruEntries,
            ...(options.lruMaxBytes && sizeOf
              ? { maxSize: options.lruMaxBytes, sizeCalculation: (v: Slot<R>) => (v === ABSENT ? 64 : Math.max(1, sizeOf(v as R))) }
              : {}),
            ttl: options.lruTtlMs,
            // Staleness is judged against a clock read at most once a second: a finer resolution
            // costs a timer per millisecond per cache, which the hot path pays for.
            ttlResolution: 1_000,
            allowStale: false,
            noDeleteOnStaleGet: true,
            allowStaleOnFetchRejection: true,
            fetchMethod: async (id, _stale, { options: fetchOptions }) => {
              const { record } = await this.#loadThrough(id);
              if (record === null) {
                fetchOptions.ttl = this.#o.negativeLruTtlMs;
                return ABSENT;
              }
              return record;
            },
          })
        : null;
  }

  /** A fresh LRU answer without I/O: the record, null for a cached absence, undefined if unknown. */
  peek(id: string): R | null | undefined {
    if (this.#lru === null) return undefined;
    const v = this.#lru.get(id);
    if (v === undefined) return undefined;
    this.#o.hits.lru++;
    return v === ABSENT ? null : (v as R);
  }

  async get(id: string): Promise<R | null> {
    const lru = this.#lru;
    if (lru === null) return this.#getWithoutLru(id);
    for (let attempt = 0; attempt < MAX_ABORTED_RETRIES; attempt++) {
      let v: Slot<R> | undefined;
      try {
        // allowStale: an expired entry answers at once while it is refreshed in the background.
        v = await lru.fetch(id, { allowStale: true });
      } catch (err) {
        if (err instanceof Error && /^(deleted|evicted|replaced)$/.test(err.message)) continue;
        throw err;
      }
      // The load never yields undefined: undefined means it was aborted (the key was invalidated
      // while loading) or failed with nothing stale to offer. Load again, from after that point.
      if (v === undefined) continue;
      return v === ABSENT ? null : (v as R);
    }
    return (await this.#loadThrough(id)).record;
  }

  async invalidate(id: string): Promise<void> {
    try {
      if (this.#o.redis) await this.#o.redis.invalidate(this.#o.kind, id);
    } catch (err) {
      this.#o.onError(err);
    } finally {
      this.#lru?.delete(id);
      this.#inflight.delete(id);
    }
  }

  /** Drops the in-process tier (e.g. after the bus reconnected and messages may have been lost). */
  clearLocal(): void {
    this.#lru?.clear();
    this.#inflight.clear();
  }

  get localSize(): number {
    return this.#lru?.size ?? 0;
  }

  #getWithoutLru(id: string): Promise<R | null> {
    let p = this.#inflight.get(id);
    if (p === undefined) {
      p = this.#loadThrough(id).then(
        (r) => r.record,
        (err: unknown) => {
          throw err;
        },
      );
      const mine = p;
      this.#inflight.set(id, mine);
      const done = (): void => {
        if (this.#inflight.get(id) === mine) this.#inflight.delete(id);
      };
      mine.then(done, done);
    }
    return p;
  }

  async #loadThrough(id: string): Promise<Loaded<R>> {
    const { kind, redis } = this.#o;
    let generation: string | null = null;
    if (redis) {
      try {
        const found = await redis.lookup(kind, id);
        if (found.value !== null) {
          const record = this.#decode(found.value);
          if (record !== undefined) {
            this.#o.hits.redis++;
            return { record };
          }
        }
        generation = found.generation;
      } catch (err) {
        // Redis unavailable: serve from Postgres without filling the Redis tier.
        this.#o.onError(err);
      }
    }
    const data = await this.#o.load(id);
    this.#o.hits.postgres++;
    if (redis && generation !== null) {
      const encoded = data === null ? ABSENT_ENCODING : JSON.stringify(data);
      const ttl = data === null ? this.#o.negativeRedisTtlMs : this.#o.redisTtlMs;
      redis.fill(kind, id, generation, encoded, ttl).catch((err: unknown) => this.#o.onError(err));
    }
    return { record: data === null ? null : this.#o.hydrate(data) };
  }

  /** undefined when the stored text is unreadable (treated as a miss). */
  #decode(encoded: string): R | null | undefined {
    if (encoded === ABSENT_ENCODING) return null;
    try {
      return this.#o.hydrate(JSON.parse(encoded) as D);
    } catch {
      return undefined;
    }
  }
}
