// Invariant: one entity kind is read through LRU → Redis → Postgres, and absences are cached too
// (shorter TTL). The LRU is bounded by entries and by bytes (key and value sizes). Concurrent misses of one key share a single load (lru-cache fetchMethod, or an
// in-flight map when the LRU tier is disabled). An LRU hit is answered synchronously by peek()
// with no I/O. invalidate() first bumps/deletes the Redis entry, then drops the LRU entry; a load
// still in flight at that moment is aborted by the LRU and retried, so nothing read before the
// invalidation is kept afterwards.
import { LRUCache } from 'lru-cache';
import { ABSENT_ENCODING, type SharedCacheTier } from './shared-cache-tier.ts';

export type CacheTier = 'lru' | 'redis' | 'postgres';

const ABSENT: { readonly absent: true } = Object.freeze({ absent: true as const });
type Slot<V> = V | typeof ABSENT;

export interface TieredCacheOptions<V extends object> {
  /** The entity kind: the namespace of its Redis keys (link, org, app, domain). */
  kind: string;
  /** LRU entries; 0 disables the in-process tier. */
  lruEntries: number;
  /** Byte budget of the LRU: entries are evicted once their sizes (value and key) add up to more. */
  lruMaxBytes: number;
  /** Approximate in-memory size of a value (bytes). */
  sizeOf: (value: V) => number;
  lruTtlMs: number;
  negativeLruTtlMs: number;
  redis: SharedCacheTier | null;
  redisTtlMs: number;
  negativeRedisTtlMs: number;
  load: (id: string) => Promise<V | null>;
  /** A value read back from its JSON in the Redis tier (trusted: this code wrote it). */
  revive: (json: unknown) => V;
  /** Incremented by the tier that answered each lookup. */
  hits: Record<CacheTier, number>;
  onError: (err: unknown) => void;
}

interface Loaded<V> {
  record: V | null;
}

const MAX_ABORTED_RETRIES = 3;
/** The LRU's own bookkeeping per entry, counted with each entry's size. */
const ENTRY_OVERHEAD_BYTES = 64;

export class TieredCache<V extends object> {
  readonly #o: TieredCacheOptions<V>;
  readonly #lru: LRUCache<string, Slot<V>> | null;
  readonly #inflight = new Map<string, Promise<V | null>>();
  /**
   * Passed to every LRU get: lru-cache otherwise allocates an options object per call (and adds a
   * property to it), which the redirect path pays on every request, twice.
   */
  readonly #getOptions: LRUCache.GetOptions<string, Slot<V>, unknown> = {};

  constructor(options: TieredCacheOptions<V>) {
    this.#o = options;
    const sizeOf = options.sizeOf;
    this.#lru =
      options.lruEntries > 0
        ? new LRUCache<string, Slot<V>>({
            max: options.lruEntries,
            maxSize: options.lruMaxBytes,
            // A key is a short code, id or host: counted too, so absences of long keys are bounded.
            sizeCalculation: (v: Slot<V>, id: string) => ENTRY_OVERHEAD_BYTES + 2 * id.length + (v === ABSENT ? 0 : Math.max(1, sizeOf(v as V))),
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
  peek(id: string): V | null | undefined {
    if (this.#lru === null) return undefined;
    const v = this.#lru.get(id, this.#getOptions);
    if (v === undefined) return undefined;
    this.#o.hits.lru++;
    return v === ABSENT ? null : (v as V);
  }

  async get(id: string): Promise<V | null> {
    const lru = this.#lru;
    if (lru === null) return this.#getWithoutLru(id);
    for (let attempt = 0; attempt < MAX_ABORTED_RETRIES; attempt++) {
      let v: Slot<V> | undefined;
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
      return v === ABSENT ? null : (v as V);
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

  #getWithoutLru(id: string): Promise<V | null> {
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

  async #loadThrough(id: string): Promise<Loaded<V>> {
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
    const value = await this.#o.load(id);
    this.#o.hits.postgres++;
    if (redis && generation !== null) {
      const encoded = value === null ? ABSENT_ENCODING : JSON.stringify(value);
      const ttl = value === null ? this.#o.negativeRedisTtlMs : this.#o.redisTtlMs;
      redis.fill(kind, id, generation, encoded, ttl).catch((err: unknown) => this.#o.onError(err));
    }
    return { record: value };
  }

  /** undefined when the stored text is unreadable (treated as a miss). */
  #decode(encoded: string): V | null | undefined {
    if (encoded === ABSENT_ENCODING) return null;
    try {
      return this.#o.revive(JSON.parse(encoded));
    } catch {
      return undefined;
    }
  }
}
