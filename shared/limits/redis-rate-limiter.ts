// Invariant: every decision is one atomic Lua script on the Redis server: read the bucket, refill,
// take a token, write it back and set its expiry, all with the clock of the Redis server (`TIME`),
// so any number of processes on any number of hosts share one limit per key with no race and no
// clock skew between them. Bucket keys are `${prefix}rl:${key}` and carry a PEXPIRE of the time
// until they are full again (plus a second), so idle buckets vanish. The arithmetic mirrors
// token-bucket.ts exactly. The Redis client is borrowed: close() never closes it.
import type { RedisClient } from '../redis/redis-client.ts';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';
import { assertLimitPerMin, UNITS_PER_TOKEN } from './token-bucket.ts';

const COMMAND = 'shortlinkTakeToken';

// KEYS[1] bucket; ARGV[1] limit per minute; ARGV[2] clock in ms, or '' to use the server's TIME.
// Numbers are written with %.0f: they are whole and below 2^53, and Lua's tostring would round
// them to 14 significant digits.
const TAKE_TOKEN_LUA = `
local unit = ${UNITS_PER_TOKEN}
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
now = math.floor(now)
local capacity = limit * unit
local held = redis.call('HMGET', KEYS[1], 'u', 'at')
local units = tonumber(held[1])
local at = tonumber(held[2])
if units == nil or at == nil then
  units = capacity
  at = now
end
if now > at then
  units = units + (now - at) * limit
  at = now
end
if units > capacity then units = capacity end
local allowed = 0
local retry = 0
local remaining = 0
if units >= unit then
  units = units - unit
  allowed = 1
  remaining = math.floor(units / unit)
else
  retry = math.ceil((unit - units) / (limit * 1000))
  if retry < 1 then retry = 1 end
end
local untilFull = math.ceil((capacity - units) / limit)
if untilFull < 1 then untilFull = 1 end
redis.call('HSET', KEYS[1], 'u', string.format('%.0f', units), 'at', string.format('%.0f', at))
redis.call('PEXPIRE', KEYS[1], untilFull + 1000)
return {allowed, retry, remaining}
`;

interface TakeTokenClient {
  [COMMAND](key: string, limitPerMin: string, nowMs: string): Promise<unknown>;
}

export interface RedisRateLimiterOptions {
  /**
   * Test hook only: a clock (ms) sent to the script instead of the server's TIME. With it, several
   * hosts would trust their own clocks; production code leaves it unset.
   */
  clock?: () => number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: RedisClient & TakeTokenClient;
  readonly #prefix: string;
  readonly #clock: (() => number) | undefined;

  /**
   * @param redis a client the caller owns and closes; the script is registered on it (EVALSHA,
   *   falling back to EVAL after a server restart).
   * @param prefix the deployment's key prefix, e.g. `shortlink:`.
   */
  constructor(redis: RedisClient, prefix: string, options: RedisRateLimiterOptions = {}) {
    redis.defineCommand(COMMAND, { lua: TAKE_TOKEN_LUA, numberOfKeys: 1 });
    this.#redis = redis as RedisClient & TakeTokenClient;
    this.#prefix = prefix;
    this.#clock = options.clock;
  }

  /** The Redis key holding `key`'s bucket. */
  bucketKey(key: string): string {
    return `${this.#prefix}rl:${key}`;
  }

  async consume(key: string, limitPerMin: number): Promise<RateDecision> {
    assertLimitPerMin(limitPerMin);
    const now = this.#clock ? String(Math.floor(this.#clock())) : '';
    const reply = await this.#redis[COMMAND](this.bucketKey(key), String(limitPerMin), now);
    return toDecision(reply);
  }

  /** No-op: the Redis client belongs to the caller. */
  async close(): Promise<void> {}
}

function toDecision(reply: unknown): RateDecision {
  if (!Array.isArray(reply) || reply.length !== 3) throw new Error(`unexpected rate-limit reply: ${String(reply)}`);
  const [allowed, retryAfterSeconds, remaining] = reply.map((v: unknown) => Number(v));
  if (![allowed, retryAfterSeconds, remaining].every((n) => Number.isInteger(n))) {
    throw new Error(`unexpected rate-limit reply: ${JSON.stringify(reply)}`);
  }
  return { allowed: allowed === 1, retryAfterSeconds: retryAfterSeconds ?? 0, remaining: remaining ?? 0 };
}
