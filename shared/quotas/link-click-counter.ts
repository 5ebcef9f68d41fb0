// Invariant: a link with maxClicks serves a click only after take() said yes, and take() says yes
// at most maxClicks times per link while the counter store keeps the link's counter: one atomic
// step (Redis: a Lua script; embedded: process memory, where every worker is this process)
// checks and increments, so concurrent workers of every host never pass the limit together.
// count() reads the counter without changing it (the API's resolve).
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.ts';

export interface LinkClickCounter {
  /** Counts one click of the link if fewer than `max` were counted; false when the limit is reached. */
  take(linkId: string, max: number): Promise<boolean>;
  /** Clicks counted so far. */
  count(linkId: string): Promise<number>;
}

/** One process's counters (embedded mode: the API, the redirector and the CLI share the process). Bounded by the links that have maxClicks. */
export class MemoryLinkClickCounter implements LinkClickCounter {
  readonly #counts = new Map<string, number>();

  async take(linkId: string, max: number): Promise<boolean> {
    const n = this.#counts.get(linkId) ?? 0;
    if (n >= max) return false;
    this.#counts.set(linkId, n + 1);
    return true;
  }

  async count(linkId: string): Promise<number> {
    return this.#counts.get(linkId) ?? 0;
  }
}

const TAKE = new RedisScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1`);

/** The counters every redirector worker of every host shares: one Redis key per link, no expiry (a link's clicks are for its lifetime). */
export class RedisLinkClickCounter implements LinkClickCounter {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  key(linkId: string): string {
    return `${this.#prefix}link-clicks:${linkId}`;
  }

  /** Refuses to guess when Redis cannot answer: the error reads as an unreachable dependency (503 SML006), never a click past the limit. */
  async take(linkId: string, max: number): Promise<boolean> {
    try {
      return Number(await TAKE.run(this.#redis, [this.key(linkId)], [max])) === 1;
    } catch (err) {
      throw Object.assign(new Error('the link click counter (Redis) could not be reached', { cause: err }), { code: 'ETIMEDOUT' });
    }
  }

  async count(linkId: string): Promise<number> {
    return Number((await this.#redis.get(this.key(linkId))) ?? 0);
  }
}
