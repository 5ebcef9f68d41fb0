// Invariant: the per-link click counters every redirector worker of every host shares: one Redis
// key per link (no expiry: a link's clicks are for its lifetime), changed only by one Lua script
// that grants at most what is left below the link's limit and, in the same step, writes a token
// into the link's exhausted marker when the take leaves it at its limit. Counter and marker carry
// the link's id as hash tag (`…link-clicks:{id}`, `…link-clicks:{id}:exhausted`), so the step
// stays one slot on a Redis Cluster (one call per slot there; one call for every link of a turn
// on a single server, its limits and wants packed in one argument: what a call costs the client
// grows with its arguments); after the step the token is copied into one index hash (link id →
// token) that the link.expired sweep scans. A process dying between the two leaves the marker
// without its index entry until the next take of that link writes both again; the marker, never
// the index, is what a clear compares. On a single server a counter kept under its name from
// before the hash tags (`…link-clicks:id`) is carried over, once per link and process, before its
// first take, so an upgrade loses no count. An unreachable Redis is an error that reads as an
// unreachable dependency (503 SML006), never a click past the limit.
import { randomUUID } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { hashTag, isCluster, mgetAcrossSlots, type RedisClient } from '../redis/redis-client.ts';
import { RedisScript } from '../redis/redis-script.ts';
import type { ClickRequest, ExhaustedLink, LinkClickStore } from './link-click-counter.ts';

// KEYS: each link's counter, in order (its marker is the counter's name + ':exhausted', same
// slot); ARGV[1]: "max,n;max,n;…" a link; ARGV[2]: the call's token (a link's marker gets
// "<token>:<i>"). Returns each link's grant, then -i for each link i (1-based) left at its limit.
const TAKE = new RedisScript(`
local out = {}
local exhausted = {}
local i = 0
for max, want in string.gmatch(ARGV[1], '(%d+),(%d+)') do
  i = i + 1
  local counter = KEYS[i]
  local cur = tonumber(redis.call('GET', counter) or '0')
  local grant = tonumber(max) - cur
  if grant > tonumber(want) then grant = tonumber(want) end
  if grant < 0 then grant = 0 end
  if grant > 0 then redis.call('INCRBY', counter, grant) end
  out[i] = grant
  if cur + grant >= tonumber(max) then
    redis.call('SET', counter .. ':exhausted', ARGV[2] .. ':' .. i)
    exhausted[#exhausted + 1] = -i
  end
end
for _, x in ipairs(exhausted) do out[#out + 1] = x end
return out`);

// KEYS[2i-1] a counter, KEYS[2i] its name before hash tags: the old one is moved to the new name
// unless the new one exists (single server only).
const CARRY_OVER = new RedisScript(`
for i = 1, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    local before = redis.call('GET', KEYS[i + 1])
    if before then
      redis.call('SET', KEYS[i], before)
      redis.call('DEL', KEYS[i + 1])
    end
  end
end
return 0`);

/** Links this process has carried over (or found nothing to carry): bounded, cleared when full. */
const MAX_CARRIED = 100_000;

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
  readonly #carried = new Set<string>();

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
    const token = randomUUID();
    const reply = (await TAKE.run(
      this.#redis,
      group.map((r) => this.key(r.linkId)),
      [group.map((r) => `${Math.max(0, Math.floor(r.max))},${Math.max(0, Math.floor(r.n))}`).join(';'), token],
    )) as number[];
    const grants = new Map<ClickRequest, number>();
    group.forEach((r, i) => {
      grants.set(r, Number(reply[i]));
    });
    const exhausted: string[] = [];
    for (let j = group.length; j < reply.length; j++) {
      const i = -Number(reply[j]);
      exhausted.push((group[i - 1] as ClickRequest).linkId, `${token}:${i}`);
    }
    if (exhausted.length > 0) await this.#redis.hset(this.indexKey(), ...exhausted);
    return grants;
  }

  /** On a single server, moves counters of links not seen yet from their pre-tag names (once per link and process). */
  async #carryOver(requests: readonly ClickRequest[]): Promise<void> {
    if (isCluster(this.#redis)) return;
    const fresh = [...new Set(requests.map((r) => r.linkId).filter((id) => !this.#carried.has(id)))];
    if (fresh.length === 0) return;
    await CARRY_OVER.run(
      this.#redis,
      fresh.flatMap((id) => [this.key(id), this.legacyKey(id)]),
      [],
    );
    if (this.#carried.size + fresh.length > MAX_CARRIED) this.#carried.clear();
    for (const id of fresh) this.#carried.add(id);
  }

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    try {
      await this.#carryOver(requests);
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
