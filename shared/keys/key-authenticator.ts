// Invariant: a key the store does not know (unknown or revoked) is looked up at most once per
// NEGATIVE_KEY_TTL_MS per process: its SHA-256 (never the value itself) is remembered in a bounded
// LRU, and concurrent lookups of one hash share one query. Known keys are never cached, so a
// revocation takes effect on the next request. A key created in this process evicts its own
// entry at once (key-created.ts); one created elsewhere (the admin CLI) is usable after the TTL
// at the latest, and in practice at once, since a fresh 192-bit key was never tried before.
import { LRUCache } from 'lru-cache';
import { invalidApiKey } from '../errors/domain-errors.ts';
import { hashApiKey } from './api-key.ts';
import { onKeyCreated } from './key-created.ts';
import type { KeyLookup, Principal } from './principal.ts';

export const NEGATIVE_KEY_TTL_MS = 5_000;
export const NEGATIVE_KEY_ENTRIES = 10_000;

export class KeyAuthenticator {
  private readonly unknown: LRUCache<string, true>;
  private readonly pending = new Map<string, Promise<Principal | null>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly lookup: KeyLookup,
    now: () => number,
    opts: { ttlMs?: number; maxEntries?: number } = {},
  ) {
    this.unknown = new LRUCache<string, true>({
      max: opts.maxEntries ?? NEGATIVE_KEY_ENTRIES,
      ttl: opts.ttlMs ?? NEGATIVE_KEY_TTL_MS,
      ttlResolution: 0,
      perf: { now },
    });
    this.unsubscribe = onKeyCreated((keyHash) => this.forget(keyHash));
  }

  /** The principal behind a key value, or SML003 for a missing, unknown or revoked key. */
  async authenticate(key: string | undefined): Promise<Principal> {
    if (!key) throw invalidApiKey();
    const keyHash = hashApiKey(key);
    if (this.unknown.has(keyHash)) throw invalidApiKey();
    let lookup = this.pending.get(keyHash);
    if (!lookup) {
      lookup = this.lookup.findByHash(keyHash).finally(() => this.pending.delete(keyHash));
      this.pending.set(keyHash, lookup);
    }
    const principal = await lookup;
    if (principal === null) {
      this.unknown.set(keyHash, true);
      throw invalidApiKey();
    }
    return principal;
  }

  /** Drops the negative entry of a key hash (the key now exists). */
  forget(keyHash: string): void {
    this.unknown.delete(keyHash);
  }

  /** Stops listening for keys created in this process. */
  close(): void {
    this.unsubscribe();
    this.unknown.clear();
  }
}
