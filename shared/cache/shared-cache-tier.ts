// Invariant: the shared cache tier (between a process's LRU and Postgres) never lets an entry
// outlive an invalidation of its key: a loader reads the key's generation with the (missing)
// entry before it reads Postgres, and fill() writes only if that generation is still current.
// Entries are encoded text: JSON, or ABSENT_ENCODING for a cached absence.

/** Encoded absence (negative cache entry). */
export const ABSENT_ENCODING = '!';

export interface CacheLookup {
  /** The stored encoding, ABSENT_ENCODING for a cached absence, or null on a miss. */
  value: string | null;
  /** The key's generation when read; pass it back to fill(). */
  generation: string;
}

export interface SharedCacheTier {
  lookup(kind: string, id: string): Promise<CacheLookup>;
  /** Writes the entry unless the key was invalidated since `generation` was read; true if written. */
  fill(kind: string, id: string, generation: string, encoded: string, ttlMs: number): Promise<boolean>;
  /** Deletes the entry and refuses every fill based on an earlier generation. */
  invalidate(kind: string, id: string): Promise<void>;
}
