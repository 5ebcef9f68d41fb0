// Invariant: the fleet's redirector workers in one Redis sorted set, `${prefix}fleet:redirector-workers`
// (member: worker id; score: the Redis server's clock at the worker's last heartbeat, so hosts'
// clocks never matter). One script announces a worker, drops every member older than the
// liveness window and counts the rest; the set expires when no worker has announced for two
// windows.
import type { RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { WorkerRegistry } from './live-workers.ts';

// KEYS[1] the set; ARGV: worker id, liveness window (ms).
const HEARTBEAT = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - live)
redis.call('PEXPIRE', KEYS[1], live * 2)
return redis.call('ZCARD', KEYS[1])`);

export class RedisWorkerRegistry implements WorkerRegistry {
  readonly #redis: RedisClient;
  readonly key: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.key = `${prefix}fleet:redirector-workers`;
  }

  async heartbeat(workerId: string, liveMs: number): Promise<number> {
    return Number(await HEARTBEAT.run(this.#redis, [this.key], [workerId, liveMs]));
  }

  async leave(workerId: string): Promise<void> {
    await this.#redis.zrem(this.key, workerId);
  }
}
