// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that increments below the limit.
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.ts';
import type { LinkClickCounter } from './link-click-counter.ts';

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
