// Invariant: TEST-ONLY. A real Redis Cluster of `masters` masters (no replicas) from the machine's
// `redis-server`, on free loopback ports with their cluster-bus ports, in a folder of the caller's,
// joined with `redis-cli --cluster create` and handed out once every node reports
// cluster_state:ok. Nothing is persisted (no RDB, no AOF); the slot map lives in each node's
// nodes.conf, so a stopped node started again rejoins with its slots. close() kills every node.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../../shared/net/free-port.ts';

const run = promisify(execFile);

export interface RedisClusterNode {
  host: string;
  port: number;
}

export interface RedisCluster {
  nodes: readonly RedisClusterNode[];
  /** `REDIS_CLUSTER_NODES` for them: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  seeds: string;
  /** SIGSTOP / SIGCONT node i: it holds its connections and answers nothing meanwhile. */
  freeze(i: number): void;
  thaw(i: number): void;
  /** Stops node i (SIGTERM, its data is gone), or starts it again on its port and slots. */
  stop(i: number): Promise<void>;
  start(i: number): Promise<void>;
  /** Resolves once every node reports cluster_state:ok. */
  healthy(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Whether this machine can start one (the redis-server and redis-cli binaries answer). */
export async function canStartRedisCluster(): Promise<boolean> {
  try {
    await run('redis-server', ['--version']);
    await run('redis-cli', ['--version']);
    return true;
  } catch {
    return false;
  }
}

async function clusterState(port: number): Promise<string> {
  const r = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  r.on('error', () => undefined); // a node still starting refuses: that is the answer
  try {
    await r.connect();
    const info = await r.cluster('INFO');
    return /cluster_state:(\w+)/.exec(String(info))?.[1] ?? 'unknown';
  } catch {
    return 'down';
  } finally {
    r.disconnect();
  }
}

export async function startRedisCluster(dir: string, masters = 3): Promise<RedisCluster> {
  mkdirSync(dir, { recursive: true });
  const ports: { port: number; bus: number }[] = [];
  for (let i = 0; i < masters; i++) ports.push({ port: await freePort(), bus: await freePort() });
  const procs: (ChildProcess | null)[] = ports.map(() => null);

  const launch = async (i: number): Promise<void> => {
    const { port, bus } = ports[i] as { port: number; bus: number };
    // biome-ignore format: one flag and its value a line
    const child = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-port', String(bus), '--cluster-config-file', join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--loglevel', 'warning', '--logfile', join(dir, `redis-${port}.log`),
    ], { stdio: 'ignore' });
    procs[i] = child;
    const deadline = Date.now() + 10_000;
    while ((await clusterState(port)) === 'down') {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start (log: ${join(dir, `redis-${port}.log`)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const nodes = ports.map(({ port }) => ({ host: '127.0.0.1', port }));
  const cluster: RedisCluster = {
    nodes,
    seeds: nodes.map((n) => `${n.host}:${n.port}`).join(','),
    freeze: (i) => procs[i]?.kill('SIGSTOP'),
    thaw: (i) => procs[i]?.kill('SIGCONT'),
    stop: async (i) => {
      const child = procs[i];
      procs[i] = null;
      if (!child || child.exitCode !== null) return;
      child.kill('SIGCONT');
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
    },
    start: (i) => launch(i),
    healthy: async (timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(ports.map(({ port }) => clusterState(port)));
        if (states.every((s) => s === 'ok')) return;
        if (Date.now() > deadline) throw new Error(`Redis Cluster not ok: ${states.join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: async () => {
      await Promise.all(ports.map((_, i) => cluster.stop(i)));
    },
  };
  try {
    for (let i = 0; i < masters; i++) await launch(i);
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', '0', '--cluster-yes']);
    await cluster.healthy();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}
