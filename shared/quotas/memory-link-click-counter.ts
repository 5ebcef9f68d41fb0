// Invariant: one process's per-link click counters (embedded mode: the API, the redirector and the
// CLI share the process), checked and incremented in one synchronous step. Bounded by the links
// that have maxClicks.
import type { ClickRequest, LinkClickCounter } from './link-click-counter.ts';

export class MemoryLinkClickCounter implements LinkClickCounter {
  readonly #counts = new Map<string, number>();

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    return requests.map(({ linkId, max, n }) => {
      const cur = this.#counts.get(linkId) ?? 0;
      const granted = Math.max(0, Math.min(n, max - cur));
      if (granted > 0) this.#counts.set(linkId, cur + granted);
      return granted;
    });
  }

  async count(linkId: string): Promise<number> {
    return this.#counts.get(linkId) ?? 0;
  }
}
