// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that grants at most what is left below the link's limit and, in the same step, writes a fresh
// token into the link's exhausted marker when the take leaves it at its limit. Counter and marker
// carry the link's id as hash tag (`…link-clicks:{id}`, `…:{id}:exhausted`), so the step stays one
// slot on a Redis Cluster (one call per slot there; one call for every link of a turn on a single
// server); after the step the token is copied into one index hash (link id →
// token) that the link.expired sweep scans. A process dying between the two leaves the marker
// without its index entry until the next take of that link writes both again; the marker, never
// the index, is what a clear compares. On a single server a counter kept under its name from
// before the hash tags (`…link-clicks:id`) is carried over by its link's first take, so an upgrade
// loses no count. An unreachable Redis is an error that reads as an unreachable dependency (503
// SML006), never a click past the limit.
import { randomUUID } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { hashTag, isCluster, mgetAcrossSlots, type RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickRequest, ExhaustedLink, LinkClickStore } from './link-click-counter.ts';

// For each link asked, in order: KEYS holds `stride` keys a link (its counter, its exhausted
// marker, and on a single server the counter's name before hash tags), ARGV[1] the stride, then
// max, n and a fresh token a link. Returns grant and token ('' unless the take left the link at its
// limit) a link. One call serves every link of one hash slot: all of a turn's on a single server.
const TAKE = new RedisScript(`
local stride = tonumber(ARGV[1])
local out = {}
for i = 0, (#KEYS / stride) - 1 do
  local counter, marker = KEYS[i * stride + 1], KEYS[i * stride + 2]
  if stride == 3 and redis.call('EXISTS', counter) == 0 then
    local before = redis.call('GET', KEYS[i * stride + 3])
    if before then
      redis.call('SET', counter, before)
      redis.call('DEL', KEYS[i * stride + 3])
    end
  end
  local cur = tonumber(redis.call('GET', counter) or '0')
  local max = tonumber(ARGV[i * 3 + 2])
  local grant = max - cur
  local want = tonumber(ARGV[i * 3 + 3])
  if grant > want then grant = want end
  if grant < 0 then grant = 0 end
  if grant > 0 then redis.call('INCRBY', counter, grant) end
  local token = ''
  if cur + grant >= max then
    token = ARGV[i * 3 + 4]
    redis.call('SET', marker, token)
  end
  out[i * 2 + 1] = grant
  out[i * 2 + 2] = token
end
return out`);

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

  /** The requests in groups of one hash slot each: one group on a single server. */
  #groups(requests: readonly ClickRequest[]): ClickRequest[][] {
    if (!isCluster(this.#redis)) return [[...requests]];
    const bySlot = new Map<number, ClickRequest[]>();
    for (const r of requests) {
      const slot = calculateSlot(this.key(r.linkId));
      const group = bySlot.get(slot);
      if (group) group.push(r);
      else bySlot.set(slot, [r]);
    }
    return [...bySlot.values()];
  }

  async #takeGroup(group: readonly ClickRequest[]): Promise<Map<ClickRequest, number>> {
    const single = !isCluster(this.#redis);
    const keys = group.flatMap((r) => (single ? [this.key(r.linkId), this.markerKey(r.linkId), this.legacyKey(r.linkId)] : [this.key(r.linkId), this.markerKey(r.linkId)]));
    const args = [single ? 3 : 2, ...group.flatMap((r) => [r.max, r.n, randomUUID()])];
    const reply = (await TAKE.run(this.#redis, keys, args)) as (number | string)[];
    const grants = new Map<ClickRequest, number>();
    const exhausted: string[] = [];
    group.forEach((r, i) => {
      grants.set(r, Number(reply[i * 2]));
      const token = String(reply[i * 2 + 1] ?? '');
      if (token !== '') exhausted.push(r.linkId, token);
    });
    if (exhausted.length > 0) await this.#redis.hset(this.indexKey(), ...exhausted);
    return grants;
  }

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    try {
      const grants = new Map<ClickRequest, number>();
      for (const g of await Promise.all(this.#groups(requests).map((group) => this.#takeGroup(group)))) for (const [r, n] of g) grants.set(r, n);
      return requests.map((r) => grants.get(r) ?? 0);
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
