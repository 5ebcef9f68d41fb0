// Invariant: every served click of every plan is counted here once and reaches usage_counters
// (the UsageStore) in one statement per flush for every organisation at once; a failed flush
// keeps its counts for the next one. The tally knows the durable count of each (organisation,
// period) it wrote or read: the floor a lost shared counter is re-seeded from.
import type { UsageStore } from './usage-store.ts';

export interface TallyEntry {
  readonly orgId: string;
  readonly periodStart: string;
  /** Served clicks not yet added to usage_counters. */
  pending: number;
  /** Last durable count seen from usage_counters; null until read or written. */
  durable: number | null;
}

export class UsageTally {
  readonly #usage: UsageStore;
  readonly #onError: ((err: unknown) => void) | undefined;
  readonly #entries = new Set<TallyEntry>();

  constructor(usage: UsageStore, onError?: (err: unknown) => void) {
    this.#usage = usage;
    this.#onError = onError;
  }

  /** A new tally for one organisation and period; forget() it once it has nothing pending. */
  entry(orgId: string, periodStart: string): TallyEntry {
    const e: TallyEntry = { orgId, periodStart, pending: 0, durable: null };
    this.#entries.add(e);
    return e;
  }

  forget(e: TallyEntry): void {
    this.#entries.delete(e);
  }

  /** The durable count, read once when not known yet (0 when that read fails: reported). */
  async durable(e: TallyEntry): Promise<number> {
    if (e.durable === null) {
      try {
        e.durable = await this.#usage.read(e.orgId, e.periodStart);
      } catch (err) {
        this.#onError?.(err);
      }
    }
    return e.durable ?? 0;
  }

  /** Clicks counted but not yet durable, every organisation. */
  get pendingClicks(): number {
    let n = 0;
    for (const e of this.#entries) n += e.pending;
    return n;
  }

  /** Adds the pending counts to usage_counters; true when there were any. */
  async flush(): Promise<boolean> {
    const items: { e: TallyEntry; clicks: number }[] = [];
    for (const e of this.#entries) if (e.pending > 0) items.push({ e, clicks: e.pending });
    if (items.length === 0) return false;
    for (const { e, clicks } of items) e.pending -= clicks;
    try {
      const totals = await this.#usage.add(items.map(({ e, clicks }) => ({ orgId: e.orgId, periodStart: e.periodStart, clicks })));
      const byKey = new Map(totals.map((t) => [`${t.orgId}|${t.periodStart}`, t.clicks]));
      for (const { e } of items) {
        const clicks = byKey.get(`${e.orgId}|${e.periodStart}`);
        if (clicks !== undefined) e.durable = clicks;
      }
    } catch (err) {
      for (const { e, clicks } of items) e.pending += clicks; // retried next flush
      this.#onError?.(err);
    }
    return true;
  }
}
