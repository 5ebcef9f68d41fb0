// Invariant: one process's click counters (embedded mode), with the lease semantics of
// ClickCounterStore; counters live as long as the process.
import type { ClickCounterStore, Lease } from './click-counter-store.ts';

export class MemoryClickCounterStore implements ClickCounterStore {
  readonly #counters = new Map<string, number>();

  async lease(orgId: string, periodStart: string, floor: number, want: number, limit: number): Promise<Lease> {
    const key = `${periodStart}:${orgId}`;
    const cur = Math.max(this.#counters.get(key) ?? 0, floor);
    const granted = Math.max(0, Math.min(want, limit - cur));
    this.#counters.set(key, cur + granted);
    return { granted, total: cur + granted };
  }

  async add(deltas: readonly { orgId: string; periodStart: string; delta: number }[]): Promise<number[]> {
    return deltas.map(({ orgId, periodStart, delta }) => {
      const key = `${periodStart}:${orgId}`;
      const next = Math.max(0, (this.#counters.get(key) ?? 0) + delta);
      this.#counters.set(key, next);
      return next;
    });
  }
}
