// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that grants, for each link asked, at most what is left below its limit and, in the same step,
// bumps the link's generation in the exhausted-links hash when the take leaves it at its limit.
// An unreachable Redis is an error that reads as an unreachable dependency (503 SML006), never a
// click past the limit.
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickRequest, ExhaustedLink, LinkClickStore } from './link-click-counter.ts';

// KEYS[1] the exhausted-links hash, KEYS[i + 1] link i's counter; ARGV: max, n, link id per link.
const TAKE = new RedisScript(`
local out = {}
for i = 1, #KEYS - 1 do
  local key = KEYS[i + 1]
  local max = tonumber(ARGV[3 * i - 2])
  local cur = tonumber(redis.call('GET', key) or '0')
  local grant = max - cur
  local want = tonumber(ARGV[3 * i - 1])
  if grant > want then grant = want end
  if grant < 0 then grant = 0 end
  if grant > 0 then redis.call('INCRBY', key, grant) end
  if cur + grant >= max then redis.call('HINCRBY', KEYS[1], ARGV[3 * i], 1) end
  out[i] = grant
end
return out`);

// Deletes each field whose value is still the generation read (ARGV: field, generation pairs).
const CLEAR = new RedisScript(`
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0`);

export class RedisLinkClickCounter implements LinkClickStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  key(linkId: string): string {
    return `${this.#prefix}link-clicks:${linkId}`;
  }

  /** The exhausted-links hash: link id → generation. */
  exhaustedKey(): string {
    return `${this.#prefix}link-clicks-exhausted`;
  }

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    try {
      const grants = (await TAKE.run(
        this.#redis,
        [this.exhaustedKey(), ...requests.map((r) => this.key(r.linkId))],
        requests.flatMap((r) => [r.max, r.n, r.linkId]),
      )) as number[];
      return grants.map(Number);
    } catch (err) {
      throw Object.assign(new Error('the link click counter (Redis) could not be reached', { cause: err }), { code: 'ETIMEDOUT' });
    }
  }

  async count(linkId: string): Promise<number> {
    return Number((await this.#redis.get(this.key(linkId))) ?? 0);
  }

  async exhausted(limit: number): Promise<ExhaustedLink[]> {
    const [, flat] = await this.#redis.hscan(this.exhaustedKey(), '0', 'COUNT', limit);
    const out: ExhaustedLink[] = [];
    for (let i = 0; i + 1 < flat.length && out.length < limit; i += 2) out.push({ linkId: flat[i] as string, generation: flat[i + 1] as string });
    return out;
  }

  async clearExhausted(entries: readonly ExhaustedLink[]): Promise<void> {
    if (entries.length === 0) return;
    await CLEAR.run(
      this.#redis,
      [this.exhaustedKey()],
      entries.flatMap((e) => [e.linkId, e.generation]),
    );
  }
}
