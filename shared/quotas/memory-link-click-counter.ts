// Invariant: one process's per-link click counters (embedded mode: the API, the redirector and the
// CLI share the process), checked and incremented in one synchronous step that also records a
// link left at its limit. Bounded by the links that have maxClicks.
import type { ClickRequest, ExhaustedLink, LinkClickStore } from './link-click-counter.ts';

export class MemoryLinkClickCounter implements LinkClickStore {
  readonly #counts = new Map<string, number>();
  readonly #exhausted = new Map<string, number>();

  async take(requests: readonly ClickRequest[]): Promise<number[]> {
    return requests.map(({ linkId, max, n }) => {
      const cur = this.#counts.get(linkId) ?? 0;
      const granted = Math.max(0, Math.min(n, max - cur));
      if (granted > 0) this.#counts.set(linkId, cur + granted);
      if (cur + granted >= max) this.#exhausted.set(linkId, (this.#exhausted.get(linkId) ?? 0) + 1);
      return granted;
    });
  }

  async count(linkId: string): Promise<number> {
    return this.#counts.get(linkId) ?? 0;
  }

  async exhausted(limit: number): Promise<ExhaustedLink[]> {
    return [...this.#exhausted].slice(0, limit).map(([linkId, g]) => ({ linkId, generation: String(g) }));
  }

  async clearExhausted(entries: readonly ExhaustedLink[]): Promise<void> {
    for (const e of entries) if (String(this.#exhausted.get(e.linkId)) === e.generation) this.#exhausted.delete(e.linkId);
  }
}
