// Invariant: an in-memory HitSink for tests and tools: push() only appends, so the hits array
// lists exactly the hits handed over, in order.
import type { HitSink, HitSinkMetrics, RawHit } from './raw-hit.ts';

export class MemoryHitSink implements HitSink {
  readonly hits: RawHit[] = [];

  push(hit: RawHit): void {
    this.hits.push(hit);
  }

  /** Nothing is ever pending: a hit is delivered when pushed. */
  metrics(): HitSinkMetrics {
    return { queueDepth: 0, lastFlushLatencyMs: null };
  }

  clear(): void {
    this.hits.length = 0;
  }
}
