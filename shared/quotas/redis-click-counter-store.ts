// Invariant: the click counters every redirector worker of every host shares: one Redis key per
// (organisation, billing period), changed only by the two atomic scripts below, expiring a few
// days after its month.
import type { RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickCounterStore, Lease } from './click-counter-store.ts';

const LEASE = new RedisScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = tonumber(ARGV[1])
if cur < floor then cur = floor end
local grant = tonumber(ARGV[3]) - cur
local want = tonumber(ARGV[2])
if grant > want then grant = want end
if grant < 0 then grant = 0 end
redis.call('SET', KEYS[1], cur + grant, 'PX', ARGV[4])
return {grant, cur + grant}`);

const ADD = new RedisScript(`
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v < 0 then redis.call('SET', KEYS[1], 0); v = 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return v`);

/** Counters outlive their month by a few days, then expire. */
const COUNTER_TTL_MS = 40 * 24 * 3_600_000;

export class RedisClickCounterStore implements ClickCounterStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  key(orgId: string, periodStart: string): string {
    return `${this.#prefix}clicks:${periodStart}:${orgId}`;
  }

  async lease(orgId: string, periodStart: string, floor: number, want: number, limit: number): Promise<Lease> {
    const r = (await LEASE.run(this.#redis, [this.key(orgId, periodStart)], [floor, want, limit, COUNTER_TTL_MS])) as [number, number];
    return { granted: Number(r[0]), total: Number(r[1]) };
  }

  async add(deltas: readonly { orgId: string; periodStart: string; delta: number }[]): Promise<number[]> {
    return Promise.all(deltas.map((d) => ADD.run(this.#redis, [this.key(d.orgId, d.periodStart)], [d.delta, COUNTER_TTL_MS]).then(Number)));
  }
}
