// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that grants at most what is left below the link's limit and, in the same step, writes a fresh
// token into the link's exhausted marker when the take leaves it at its limit. Counter and marker
// carry the link's id as hash tag (`…link-clicks:{id}`, `…:{id}:exhausted`), so the step stays one
// slot on a Redis Cluster; after the step the token is copied into one index hash (link id →
// token) that the link.expired sweep scans. A process dying between the two leaves the marker
// without its index entry until the next take of that link writes both again; the marker, never
// the index, is what a clear compares. On a single server a counter kept under its name from
// before the hash tags (`…link-clicks:id`) is carried over by its link's first take, so an upgrade
// loses no count. An unreachable Redis is an error that reads as an unreachable dependency (503
// SML006), never a click past the limit.
import { randomUUID } from 'node:crypto';
import { hashTag, isCluster, mgetAcrossSlots, type RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickRequest, ExhaustedLink, LinkClickStore } from './link-click-counter.ts';

// KEYS[1] the counter, KEYS[2] its exhausted marker, KEYS[3] (single server only) the counter's
// name before hash tags; ARGV: max, n, a fresh token.
const TAKE = new RedisScript(`
if KEYS[3] and redis.call('EXISTS', KEYS[1]) == 0 then
  local before = redis.call('GET', KEYS[3])
  if before then
    redis.call('SET', KEYS[1], before)
    redis.call('DEL', KEYS[3])
  end
end
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local max = tonumber(ARGV[1])
local grant = max - cur
local want = tonumber(ARGV[2])
if grant > want then grant = want end
if grant < 0 then grant = 0 end
if grant > 0 then redis.call('INCRBY', KEYS[1], grant) end
if cur + grant >= max then
  redis.call('SET', KEYS[2], ARGV[3])
  return {grant, ARGV[3]}
end
return {grant}`);

// Deletes KEYS[1] (a marker) if it still holds ARGV[1]; 1 if deleted.
const DELETE_IF = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

// Deletes field ARGV[1] of the hash KEYS[1] if it still holds ARGV[2].
const HDEL_IF = new RedisScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`);

export class RedisLinkClickCounter implements LinkClickStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  key(linkId: string): string {
    return `${this.#prefix}link-clicks:${hashTag(linkId)}`;
  }

  /** The link's exhausted marker: the token of the last take that found it at its limit. */
  markerKey(linkId: string): string {
    return `${this.key(linkId)}:exhausted`;
  }

  /** The counter's name before hash tags (single server only: a cluster never had one). */
  legacyKey(linkId: string): string {
    return `${this.#prefix}link-clicks:${linkId}`;
  }

  /** The index the sweep scans: link id → a marker token. */
  indexKey(): string {
    return `${this.#prefix}link-clicks-exhausted`;
  }

  #keys(linkId: string): string[] {
    const keys = [this.key(linkId), this.markerKey(linkId)];
    return isCluster(this.#redis) ? keys : [...keys, this.legacyKey(linkId)];
  }

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    try {
      return await Promise.all(
        requests.map(async (r) => {
          const [grant, token] = (await TAKE.run(this.#redis, this.#keys(r.linkId), [r.max, r.n, randomUUID()])) as [number, string?];
          if (token !== undefined) await this.#redis.hset(this.indexKey(), r.linkId, token);
          return Number(grant);
        }),
      );
    } catch (err) {
      throw Object.assign(new Error('the link click counter (Redis) could not be reached', { cause: err }), { code: 'ETIMEDOUT' });
    }
  }

  async count(linkId: string): Promise<number> {
    const [now, before] = await mgetAcrossSlots(this.#redis, isCluster(this.#redis) ? [this.key(linkId)] : [this.key(linkId), this.legacyKey(linkId)]);
    return Number(now ?? before ?? 0);
  }

  async exhausted(limit: number): Promise<ExhaustedLink[]> {
    const [, flat] = await this.#redis.hscan(this.indexKey(), '0', 'COUNT', limit);
    const listed: { linkId: string; token: string }[] = [];
    for (let i = 0; i + 1 < flat.length && listed.length < limit; i += 2) listed.push({ linkId: flat[i] as string, token: flat[i + 1] as string });
    const markers = await mgetAcrossSlots(
      this.#redis,
      listed.map((l) => this.markerKey(l.linkId)),
    );
    const out: ExhaustedLink[] = [];
    const stale: Promise<unknown>[] = [];
    listed.forEach((l, i) => {
      const marker = markers[i];
      if (marker) out.push({ linkId: l.linkId, generation: marker });
      else stale.push(HDEL_IF.run(this.#redis, [this.indexKey()], [l.linkId, l.token])); // cleared already
    });
    await Promise.all(stale);
    return out;
  }

  async clearExhausted(entries: readonly ExhaustedLink[]): Promise<void> {
    await Promise.all(
      entries.map(async (e) => {
        if ((await DELETE_IF.run(this.#redis, [this.markerKey(e.linkId)], [e.generation])) === 1)
          await HDEL_IF.run(this.#redis, [this.indexKey()], [e.linkId, e.generation]);
      }),
    );
  }
}
