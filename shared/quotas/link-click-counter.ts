// Invariant: a link with maxClicks serves a click only after its counter granted it, and a counter
// grants at most maxClicks per link while the store keeps the link's counter: one atomic step
// checks and increments (for many links at once), so concurrent workers of every host never pass
// the limit together. count() reads a counter without changing it (the API's resolve). The same
// atomic step records every link it leaves at its limit in an exhausted-links log (a generation
// per link), which the link.expired sweep drains: a record is cleared only if no later take wrote
// it again, so a re-exhaustion is never lost. Adapters: memory-link-click-counter.ts (embedded:
// one process), redis-link-click-counter.ts (production).

export interface ClickRequest {
  linkId: string;
  max: number;
  /** Clicks wanted now. */
  n: number;
}

export interface LinkClickCounter {
  /** Grants each request up to `n` clicks without passing its `max`; the grants, in order. */
  take(requests: readonly ClickRequest[]): Promise<number[]>;
  /** Clicks counted so far. */
  count(linkId: string): Promise<number>;
}

/** A link some take left at its limit, and the generation of that record. */
export interface ExhaustedLink {
  linkId: string;
  generation: string;
}

/** The links takes left at their limit (maxClicks reached), until the sweep clears them. */
export interface ExhaustedLinks {
  /** Up to `limit` recorded links. */
  exhausted(limit: number): Promise<ExhaustedLink[]>;
  /** Clears each record unless a take has written it again since it was read. */
  clearExhausted(entries: readonly ExhaustedLink[]): Promise<void>;
}

/** What a process opens: the counters and their exhausted-links log, in one store. */
export type LinkClickStore = LinkClickCounter & ExhaustedLinks;

interface Waiting {
  max: number;
  waiters: ((granted: boolean) => void)[];
  fail: ((err: unknown) => void)[];
}

/**
 * Clicks asked for in one event-loop turn go to the store together, in one call (one Redis round
 * trip for every link clicked in that turn), and each grant goes to the requests in the order
 * they asked: never more than the store granted, so the limit holds as the store keeps it.
 */
export class LinkClickAdmission {
  readonly #counter: LinkClickCounter;
  #pending = new Map<string, Waiting>();
  #scheduled = false;

  constructor(counter: LinkClickCounter) {
    this.#counter = counter;
  }

  /** Whether this click of the link may be served (counted if so). */
  take(linkId: string, max: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let w = this.#pending.get(linkId);
      if (w === undefined) {
        w = { max, waiters: [], fail: [] };
        this.#pending.set(linkId, w);
      }
      w.waiters.push(resolve);
      w.fail.push(reject);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = new Map();
    const entries = [...batch];
    this.#counter.take(entries.map(([linkId, w]) => ({ linkId, max: w.max, n: w.waiters.length }))).then(
      (grants) => {
        entries.forEach(([, w], i) => {
          const granted = grants[i] ?? 0;
          for (let k = 0; k < w.waiters.length; k++) w.waiters[k]?.(k < granted);
        });
      },
      (err: unknown) => {
        for (const [, w] of entries) for (const reject of w.fail) reject(err);
      },
    );
  }
}
