// Invariant: embedded, the visitor salts live in this process's memory only (one process serves
// every click), each dropped SALT_TTL_SECONDS after it was made, at most MAX_CACHED_SALTS held.
import { MAX_CACHED_SALTS, newSalt, SALT_TTL_SECONDS, type SaltKey, type VisitorSaltStore } from './visitor-salts.ts';

/** Salts in this process's memory (embedded mode), dropped SALT_TTL_SECONDS after they were made. */
export class MemoryVisitorSalts implements VisitorSaltStore {
  readonly #salts = new Map<string, { salt: Buffer; until: number }>();
  constructor(private readonly clock: () => number = Date.now) {}

  async salts(keys: readonly SaltKey[]): Promise<(Buffer | null)[]> {
    const now = this.clock();
    return keys.map((k) => {
      const id = `${k.orgId}|${k.day}`;
      const known = this.#salts.get(id);
      if (known !== undefined && known.until > now) return known.salt;
      this.#evict(now);
      const salt = newSalt();
      this.#salts.set(id, { salt, until: now + SALT_TTL_SECONDS * 1000 });
      return salt;
    });
  }

  /** Salts held now (tests). */
  get size(): number {
    return this.#salts.size;
  }

  #evict(now: number): void {
    for (const [id, s] of this.#salts) if (s.until <= now) this.#salts.delete(id);
    // Oldest first (insertion order) when still full.
    for (const id of this.#salts.keys()) {
      if (this.#salts.size < MAX_CACHED_SALTS) break;
      this.#salts.delete(id);
    }
  }
}
