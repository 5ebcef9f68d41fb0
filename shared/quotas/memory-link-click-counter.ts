// Invariant: one process's per-link click counters (embedded mode: the API, the redirector and the
// CLI share the process), checked and incremented in one synchronous step. Bounded by the links
// that have maxClicks.
import type { LinkClickCounter } from './link-click-counter.ts';

/** One process's counters (embedded mode: the API, the redirector and the CLI share the process). Bounded by the links that have maxClicks. */
export class MemoryLinkClickCounter implements LinkClickCounter {
  readonly #counts = new Map<string, number>();

  async take(linkId: string, max: number): Promise<boolean> {
    const n = this.#counts.get(linkId) ?? 0;
    if (n >= max) return false;
    this.#counts.set(linkId, n + 1);
    return true;
  }

  async count(linkId: string): Promise<number> {
    return this.#counts.get(linkId) ?? 0;
  }
}
