// Invariant: embedded, the visitor salts live in this process's memory only (one process serves
// every click), each dropped SALT_TTL_SECONDS after it was made, at most MAX_CACHED_SALTS held.
import { type HeldSalt, newSalt, pruneSalts, SALT_TTL_SECONDS, type SaltKey, type VisitorSaltStore } from './visitor-salts.ts';

/** Salts in this process's memory (embedded mode), dropped SALT_TTL_SECONDS after they were made. */
export class MemoryVisitorSalts implements VisitorSaltStore {
  readonly #salts = new Map<string, HeldSalt>();
  constructor(private readonly clock: () => number = Date.now) {}

  async salts(keys: readonly SaltKey[]): Promise<(Buffer | null)[]> {
    const now = this.clock();
    return keys.map((k) => {
      const id = `${k.orgId}|${k.day}`;
      const known = this.#salts.get(id);
      if (known !== undefined && known.until > now) return known.salt;
      pruneSalts(this.#salts, now);
      const salt = newSalt();
      this.#salts.set(id, { salt, until: now + SALT_TTL_SECONDS * 1000 });
      return salt;
    });
  }

  /** Salts held now (tests). */
  get size(): number {
    return this.#salts.size;
  }
}
