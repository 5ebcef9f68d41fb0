// Invariant: TEST-ONLY. The Redis deployments a Redis suite runs against: the machine's server
// (when it answers) and the 3-master Redis Cluster the global setup started (when it could), each
// reached with the service's own client settings (shared/runtime/open-redis.ts). Keys under a
// test prefix are removed from every master of a cluster, one key per command (CROSSSLOT).
import { inject } from 'vitest';
import { parseRedisNodes } from '../../shared/config/config.ts';
import { isCluster, type RedisClient } from '../../shared/redis/redis-client.ts';
import { connectRedis, type RedisTarget } from '../../shared/runtime/open-redis.ts';

export interface RedisTestTarget {
  name: string;
  target: Exclude<RedisTarget, null>;
  /** The service's environment for it (REDIS_URL or REDIS_CLUSTER_NODES). */
  env: Record<string, string>;
}

/** Every Redis this run can reach: the server, then the cluster. */
export function redisTestTargets(): RedisTestTarget[] {
  const out: RedisTestTarget[] = [];
  const url = inject('realRedisUrl');
  if (url) out.push({ name: 'Redis 127.0.0.1:6379', target: { url }, env: { REDIS_URL: url } });
  const seeds = inject('redisClusterNodes');
  if (seeds) {
    const nodes = parseRedisNodes(seeds);
    if (typeof nodes !== 'string') out.push({ name: 'Redis Cluster (3 masters)', target: { clusterNodes: nodes }, env: { REDIS_CLUSTER_NODES: seeds } });
  }
  return out;
}

/** A client for the target, once it answers (a cluster client has read its slot map). */
export async function connectTestRedis(t: RedisTestTarget): Promise<RedisClient> {
  const client = connectRedis(t.target);
  client.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await client.ping();
      return client;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Deletes every key under `prefix`, on every master of a cluster. */
export async function deletePrefixOn(client: RedisClient, prefix: string): Promise<void> {
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      await Promise.all(keys.map((k) => node.del(k)));
    } while (cursor !== '0');
  }
}

/** Deletes the prefix's keys from the target with a client of its own. */
export async function deleteTestPrefix(t: RedisTestTarget, prefix: string): Promise<void> {
  const client = await connectTestRedis(t);
  try {
    await deletePrefixOn(client, prefix);
  } finally {
    client.disconnect();
  }
}
