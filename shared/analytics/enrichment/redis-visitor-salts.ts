// Invariant: in a fleet the visitor salts live in Redis, one key per organisation and local day
// (hash-tagged by organisation), made with SET NX so every process reads the one salt, expiring
// after SALT_TTL_SECONDS; a process keeps a copy no longer than the key lives. Redis down: no salt.
import type { RedisClient } from '../../redis/redis-client.ts';
import { type HeldSalt, MAX_CACHED_SALTS, newSalt, pruneSalts, SALT_TTL_SECONDS, type SaltKey, type VisitorSaltStore } from './visitor-salts.ts';

/** Salts in Redis, shared by every process of the fleet, with a memory of the ones already read. */
export class RedisVisitorSalts implements VisitorSaltStore {
  /** Salts read from Redis: one never changes while it lives, so a copy may be kept until it expires there. */
  readonly #cache = new Map<string, HeldSalt>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The salt's Redis key (hash-tagged by organisation). */
  key(k: SaltKey): string {
    return `${this.prefix}visitor-salt:{${k.orgId}}:${k.day}`;
  }

  async salts(keys: readonly SaltKey[]): Promise<(Buffer | null)[]> {
    const now = this.clock();
    const out: (Buffer | null)[] = keys.map((k) => {
      const c = this.#cache.get(this.key(k));
      return c !== undefined && c.until > now ? c.salt : null;
    });
    const missing = keys.map((_, i) => (out[i] === null ? i : -1)).filter((i) => i >= 0);
    await Promise.all(
      missing.map(async (i) => {
        const key = this.key(keys[i] as SaltKey);
        try {
          await this.redis.set(key, newSalt().toString('hex'), 'EX', SALT_TTL_SECONDS, 'NX');
          const [hex, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
          if (hex === null || ttl <= 0) return;
          const salt = Buffer.from(hex, 'hex');
          out[i] = salt;
          this.#remember(key, salt, now + ttl);
        } catch {
          // Redis is down: no salt, so no visitor for these visits (never a salt of this process alone).
        }
      }),
    );
    return out;
  }

  #remember(key: string, salt: Buffer, until: number): void {
    if (this.#cache.size >= MAX_CACHED_SALTS) pruneSalts(this.#cache, this.clock());
    this.#cache.set(key, { salt, until });
  }
}
