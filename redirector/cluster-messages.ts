// Invariant: the cluster primary and its workers talk only through these IPC messages. A worker
// says 'hello' once it listens for messages (anything sent earlier would be lost) and starts
// serving only after the primary's 'init' (cache epoch and worker count); /metrics on any
// worker answers the sum over all live workers, gathered by the primary with a deadline.
import type { Cluster, Worker } from 'node:cluster';
import { mergeSnapshots, type MetricsSnapshot } from './metrics.ts';

export type PrimaryMessage =
  | { t: 'init'; epoch: string; workers: number }
  | { t: 'metrics-collect'; id: number }
  | { t: 'metrics-result'; id: number; snapshot: MetricsSnapshot };

export type WorkerMessage =
  | { t: 'hello' }
  | { t: 'ready' }
  | { t: 'metrics-request'; id: number }
  | { t: 'metrics-snapshot'; id: number; snapshot: MetricsSnapshot };

const GATHER_DEADLINE_MS = 500;

function isMessage<T extends { t: string }>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && typeof (m as { t?: unknown }).t === 'string';
}

/**
 * Primary side: greets each worker's 'hello' with `init`, and answers a worker's metrics request
 * with the merged snapshots of all workers.
 */
export function servePrimary(cluster: Cluster, init: Extract<PrimaryMessage, { t: 'init' }>): void {
  let nextId = 1;
  const gathering = new Map<number, { snapshots: MetricsSnapshot[]; expected: number; done: () => void }>();
  cluster.on('message', (worker: Worker, raw: unknown) => {
    if (!isMessage<WorkerMessage>(raw)) return;
    if (raw.t === 'hello') {
      worker.send(init);
      return;
    }
    if (raw.t === 'metrics-snapshot') {
      const g = gathering.get(raw.id);
      if (g) {
        g.snapshots.push(raw.snapshot);
        if (g.snapshots.length >= g.expected) g.done();
      }
      return;
    }
    if (raw.t !== 'metrics-request') return;
    const requestId = raw.id;
    const id = nextId++;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
    const entry = { snapshots: [] as MetricsSnapshot[], expected: workers.length, done: () => {} };
    const finished = new Promise<void>((resolve) => {
      entry.done = resolve;
      setTimeout(resolve, GATHER_DEADLINE_MS).unref();
    });
    gathering.set(id, entry);
    for (const w of workers) w.send({ t: 'metrics-collect', id } satisfies PrimaryMessage);
    void finished.then(() => {
      gathering.delete(id);
      if (worker.isConnected()) worker.send({ t: 'metrics-result', id: requestId, snapshot: mergeSnapshots(entry.snapshots) } satisfies PrimaryMessage);
    });
  });
}

/** Worker side: replies to collections and returns the gatherMetrics dependency of the server. */
export function clusterMetricsClient(localSnapshot: () => MetricsSnapshot): (local: MetricsSnapshot) => Promise<MetricsSnapshot> {
  let nextId = 1;
  const waiting = new Map<number, (s: MetricsSnapshot) => void>();
  process.on('message', (raw: unknown) => {
    if (!isMessage<PrimaryMessage>(raw)) return;
    if (raw.t === 'metrics-collect') process.send?.({ t: 'metrics-snapshot', id: raw.id, snapshot: localSnapshot() } satisfies WorkerMessage);
    else if (raw.t === 'metrics-result') waiting.get(raw.id)?.(raw.snapshot);
  });
  return (local) =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(local); // primary did not answer: this worker's own numbers
      }, GATHER_DEADLINE_MS * 2);
      waiting.set(id, (s) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(s);
      });
      process.send?.({ t: 'metrics-request', id } satisfies WorkerMessage);
    });
}

/** Worker side: tells the primary this worker listens (a rolling restart waits for it). */
export function announceReady(): void {
  process.send?.({ t: 'ready' } satisfies WorkerMessage);
}

/** Primary side: resolves when `worker` announced it listens, false if it exits or `timeoutMs` passes first. */
export function workerReady(worker: Worker, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(ok);
    };
    const onMessage = (raw: unknown): void => {
      if (isMessage<WorkerMessage>(raw) && raw.t === 'ready') done(true);
    };
    const onExit = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

/** Worker side: says hello and waits for the primary's init message. */
export function awaitInit(): Promise<{ epoch: string; workers: number }> {
  return new Promise((resolve) => {
    const onMessage = (raw: unknown): void => {
      if (isMessage<PrimaryMessage>(raw) && raw.t === 'init') {
        process.off('message', onMessage);
        resolve({ epoch: raw.epoch, workers: raw.workers });
      }
    };
    process.on('message', onMessage);
    process.send?.({ t: 'hello' } satisfies WorkerMessage);
  });
}
