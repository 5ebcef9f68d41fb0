// Invariant: the primary's sum of its workers' counters never goes backwards while the primary
// lives. A live worker that misses a scrape's deadline counts with its last answer; a worker that
// exits leaves its counters (and histograms, whose buckets are counters) in a retired sum, its
// gauges with it. One book per primary; its memory is one snapshot per live worker plus the sum.
import type { MetricsJson } from '../shared/runtime/prometheus-metrics.ts';
import { AggregatorRegistry } from 'prom-client';

type Metric = MetricsJson[number];
const MONOTONIC = new Set(['counter', 'histogram']);

export class WorkerMetricsBook {
  readonly #last = new Map<number, MetricsJson>();
  #retired: MetricsJson = [];

  /** A worker's answer to a collection. */
  answered(workerId: number, metrics: MetricsJson): void {
    this.#last.set(workerId, metrics);
  }

  /** A worker exited: its counters stay in the sum, its gauges leave it. */
  async exited(workerId: number): Promise<void> {
    const last = this.#last.get(workerId);
    this.#last.delete(workerId);
    if (!last) return;
    const monotonic = last.filter((m: Metric) => MONOTONIC.has(String(m.type)));
    this.#retired = await AggregatorRegistry.aggregate([this.#retired, monotonic]).getMetricsAsJSON();
  }

  /** What a scrape adds up: each live worker's latest answer, and what exited workers counted. */
  snapshots(): MetricsJson[] {
    return [...this.#last.values(), this.#retired];
  }
}
