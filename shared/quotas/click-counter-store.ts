// Invariant: a click counter per (organisation, billing period) that only ever grows past the
// plan limit through add() (paid plans, overage) and never through lease(): lease() raises the
// counter to at least `floor` (the durable count, in case the store lost it) and then grants at
// most `limit - counter` clicks, atomically. The memory store serves one process (embedded
// mode); the Redis store is shared by every worker of every redirector host.
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.ts';

export interface Lease {
  granted: number;
  /** The counter after the grant. */
  total: number;
}

export interface ClickCounterStore {
  lease(orgId: string, periodStart: string, floor: number, want: number, limit: number): Promise<Lease>;
  /** Adds `deltas` (negative values return unused leases); resolves with each counter after it. */
  add(deltas: readonly { orgId: string; periodStart: string; delta: number }[]): Promise<number[]>;
}

export class MemoryClickCounterStore implements ClickCounterStore {
  readonly #counters = new Map<string, number>();

  async lease(orgId: string, periodStart: string, floor: number, want: number, limit: number): Promise<Lease> {
    const key = `${periodStart}:${orgId}`;
    const cur = Math.max(this.#counters.get(key) ?? 0, floor);
    const granted = Math.max(0, Math.min(want, limit - cur));
    this.#counters.set(key, cur + granted);
    return { granted, total: cur + granted };
  }

  async add(deltas: readonly { orgId: string; periodStart: string; delta: number }[]): Promise<number[]> {
    return deltas.map(({ orgId, periodStart, delta }) => {
      const key = `${periodStart}:${orgId}`;
      const next = Math.max(0, (this.#counters.get(key) ?? 0) + delta);
      this.#counters.set(key, next);
      return next;
    });
  }
}

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
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
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
