// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that grants, for each link asked, at most what is left below its limit. An unreachable Redis is
// an error that reads as an unreachable dependency (503 SML006), never a click past the limit.
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickRequest, LinkClickCounter } from './link-click-counter.ts';

const TAKE = new RedisScript(`
local out = {}
for i, key in ipairs(KEYS) do
  local cur = tonumber(redis.call('GET', key) or '0')
  local grant = tonumber(ARGV[2 * i - 1]) - cur
  local want = tonumber(ARGV[2 * i])
  if grant > want then grant = want end
  if grant < 0 then grant = 0 end
  if grant > 0 then redis.call('INCRBY', key, grant) end
  out[i] = grant
end
return out`);

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

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    try {
      const grants = (await TAKE.run(
        this.#redis,
        requests.map((r) => this.key(r.linkId)),
        requests.flatMap((r) => [r.max, r.n]),
      )) as number[];
      return grants.map(Number);
    } catch (err) {
      throw Object.assign(new Error('the link click counter (Redis) could not be reached', { cause: err }), { code: 'ETIMEDOUT' });
    }
  }

  async count(linkId: string): Promise<number> {
    return Number((await this.#redis.get(this.key(linkId))) ?? 0);
  }
}
