// Invariant: the primary's summed counters never go backwards when a worker misses a scrape or
// exits and is replaced; an exited worker's gauges leave the sum.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { aggregateMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { WorkerMetricsBook } from './worker-metrics.ts';

function worker(): { registry: Registry; clicks: Counter; queue: Gauge; latency: Histogram } {
  const registry = new Registry();
  return {
    registry,
    clicks: new Counter({ name: 'clicks_total', help: 'c', registers: [registry] }),
    queue: new Gauge({ name: 'queue_depth', help: 'q', registers: [registry] }),
    latency: new Histogram({ name: 'flush_seconds', help: 'h', buckets: [1], registers: [registry] }),
  };
}

const value = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

describe('WorkerMetricsBook', () => {
  it('keeps a late worker at its last answer and an exited worker’s counters, not its gauges', async () => {
    const book = new WorkerMetricsBook();
    const [a, b] = [worker(), worker()];
    a.clicks.inc(10);
    a.queue.set(5);
    a.latency.observe(0.5);
    b.clicks.inc(7);
    b.queue.set(2);
    book.answered(1, await a.registry.getMetricsAsJSON());
    book.answered(2, await b.registry.getMetricsAsJSON());
    const first = (await aggregateMetrics(book.snapshots())).body;
    expect([value(first, 'clicks_total'), value(first, 'queue_depth'), value(first, 'flush_seconds_count')]).toEqual([17, 7, 1]);

    // Worker 1 misses the next scrape's deadline; worker 2 answers with more.
    b.clicks.inc(3);
    book.answered(2, await b.registry.getMetricsAsJSON());
    expect(value((await aggregateMetrics(book.snapshots())).body, 'clicks_total')).toBe(20);

    // Worker 1 exits and its replacement starts from zero: the sum does not go back.
    await book.exited(1);
    const c = worker();
    c.clicks.inc(1);
    book.answered(3, await c.registry.getMetricsAsJSON());
    const after = (await aggregateMetrics(book.snapshots())).body;
    expect([value(after, 'clicks_total'), value(after, 'queue_depth'), value(after, 'flush_seconds_count')]).toEqual([21, 2, 1]);
    await book.exited(2);
    await book.exited(2); // twice: nothing more leaves
    expect(value((await aggregateMetrics(book.snapshots())).body, 'clicks_total')).toBe(21);
  });
});
