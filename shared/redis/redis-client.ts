// Invariant: one client type reaches every Redis adapter, a single server or a Redis Cluster.
// On a cluster every multi-key command and script names keys of one hash slot: keys used together
// carry the same hash tag (hashTag: a link's code or id), so they land on one slot while the keys
// of different links spread over every slot. Reads of many unrelated keys go through mgetAcrossSlots: one MGET on a single server,
// one per slot on a cluster (sent together, one round trip per master with auto-pipelining).
import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

export const isCluster = (client: RedisClient): client is Cluster => client.isCluster;

/**
 * `{tag}`: the hash tag that puts every key holding it in one slot (keys built as
 * `${prefix}name:{tag}…`, so every key still starts with REDIS_PREFIX, as ACL key patterns expect).
 */
export function hashTag(tag: string): string {
  if (tag.includes('{') || tag.includes('}')) throw new RangeError(`a hash tag cannot hold braces: ${tag}`);
  return `{${tag}}`;
}

/** The values of `keys`, in order (null where missing), whatever slots they live in. */
export async function mgetAcrossSlots(client: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
  if (keys.length === 0) return [];
  if (!isCluster(client)) return client.mget(...keys);
  const bySlot = new Map<number, number[]>();
  keys.forEach((key, i) => {
    const slot = calculateSlot(key);
    const at = bySlot.get(slot);
    if (at) at.push(i);
    else bySlot.set(slot, [i]);
  });
  const out: (string | null)[] = new Array(keys.length).fill(null);
  await Promise.all(
    [...bySlot.values()].map(async (indexes) => {
      const values = await client.mget(...indexes.map((i) => keys[i] as string));
      indexes.forEach((at, j) => {
        out[at] = values[j] ?? null;
      });
    }),
  );
  return out;
}

/** A new connection (or cluster client) with the same servers and options but its own command timeout and name (CLIENT LIST). */
export function duplicateClient(client: RedisClient, o: { commandTimeoutMs: number; name: string }): RedisClient {
  const own = { commandTimeout: o.commandTimeoutMs, connectionName: o.name };
  if (!isCluster(client)) return client.duplicate(own);
  return client.duplicate(undefined, { redisOptions: { ...client.options.redisOptions, ...own } });
}

/**
 * Resolves once a cluster client has read its slot map (it takes no command before; a single
 * server's client queues instead and resolves at once); rejects after `timeoutMs`.
 */
export function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (!isCluster(client) || client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', ready);
      reject(new Error(`the Redis Cluster was not ready within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
    const ready = (): void => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', ready);
  });
}
