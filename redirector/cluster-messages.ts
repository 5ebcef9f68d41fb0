// Invariant: the cluster primary and its workers talk only through these IPC messages. A worker
// says 'hello' once it listens for messages (anything sent earlier would be lost) and starts
// serving only after the primary's 'init' (the host's worker count). The primary serves
// METRICS_PORT: each scrape asks every live worker for its registry as JSON and, after the
// answers or a deadline, adds up what the WorkerMetricsBook holds (a late worker's last answer,
// exited workers' counters) with its own.
import type { Cluster, Worker } from 'node:cluster';
import type { MetricsJson } from '../shared/runtime/prometheus-metrics.ts';
import { WorkerMetricsBook } from './worker-metrics.ts';

export type PrimaryMessage = { t: 'init'; workers: number } | { t: 'metrics-collect'; id: number };

export type WorkerMessage = { t: 'hello' } | { t: 'ready' } | { t: 'metrics-snapshot'; id: number; metrics: MetricsJson };

const GATHER_DEADLINE_MS = 500;

function isMessage<T extends { t: string }>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && typeof (m as { t?: unknown }).t === 'string';
}

/**
 * Primary side: greets each worker's 'hello' with `init`; the returned function gathers the
 * metrics of every live worker (those that answer within the deadline) for the primary's
 * METRICS_PORT.
 */
export function servePrimary(cluster: Cluster, init: Extract<PrimaryMessage, { t: 'init' }>): () => Promise<MetricsJson[]> {
  let nextId = 1;
  const book = new WorkerMetricsBook();
  const gathering = new Map<number, { snapshots: MetricsJson[]; expected: number; done: () => void }>();
  let retiring: Promise<void> = Promise.resolve();
  cluster.on('exit', (worker: Worker) => {
    retiring = retiring.then(() => book.exited(worker.id));
  });
  cluster.on('message', (worker: Worker, raw: unknown) => {
    if (!isMessage<WorkerMessage>(raw)) return;
    if (raw.t === 'hello') {
      worker.send(init);
      return;
    }
    if (raw.t === 'metrics-snapshot') {
      book.answered(worker.id, raw.metrics);
      const g = gathering.get(raw.id);
      if (g) {
        g.snapshots.push(raw.metrics);
        if (g.snapshots.length >= g.expected) g.done();
      }
    }
  });
  return async () => {
    const id = nextId++;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w?.isConnected() === true);
    const entry = { snapshots: [] as MetricsJson[], expected: workers.length, done: () => {} };
    const finished = new Promise<void>((resolve) => {
      entry.done = resolve;
      setTimeout(resolve, GATHER_DEADLINE_MS).unref();
    });
    gathering.set(id, entry);
    for (const w of workers) w.send({ t: 'metrics-collect', id } satisfies PrimaryMessage);
    if (workers.length === 0) entry.done();
    await finished;
    gathering.delete(id);
    await retiring;
    return book.snapshots();
  };
}

/** Worker side: answers the primary's metrics collections with this worker's registry. */
export function answerMetricsCollections(read: () => Promise<MetricsJson>): void {
  process.on('message', (raw: unknown) => {
    if (!isMessage<PrimaryMessage>(raw) || raw.t !== 'metrics-collect') return;
    const id = raw.id;
    void read().then(
      (metrics) => process.send?.({ t: 'metrics-snapshot', id, metrics } satisfies WorkerMessage),
      () => undefined, // the primary's deadline covers a worker that cannot answer
    );
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
export function awaitInit(): Promise<{ workers: number }> {
  return new Promise((resolve) => {
    const onMessage = (raw: unknown): void => {
      if (isMessage<PrimaryMessage>(raw) && raw.t === 'init') {
        process.off('message', onMessage);
        resolve({ workers: raw.workers });
      }
    };
    process.on('message', onMessage);
    process.send?.({ t: 'hello' } satisfies WorkerMessage);
  });
}
