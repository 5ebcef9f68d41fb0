// Invariant: the one primary/fallback switch behind every "degrade while a dependency is down"
// path (the insured rate limiter, the fallback spool, the analytics batch saver). A call goes to
// the primary; when the primary fails, that call and every call until the retry interval has
// passed since that failure go to the fallback, and then a single call probes the primary again
// (the others keep using the fallback while it runs), so an outage costs one primary failure
// (a timeout, at worst) per interval, not one per call. onSwitch is told once when the fallback
// takes over and once when the primary is back.

export interface FailoverOptions {
  /** After a primary failure, how long calls go straight to the fallback (ms). */
  retryPrimaryAfterMs: number;
  onSwitch?: (usingFallback: boolean, cause?: unknown) => void;
  clock?: () => number;
}

export class Failover {
  readonly #o: FailoverOptions;
  #usingFallback = false;
  #nextProbeAt = 0;

  constructor(options: FailoverOptions) {
    this.#o = options;
  }

  /** True while the last primary call failed. */
  get usingFallback(): boolean {
    return this.#usingFallback;
  }

  async run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    const now = (this.#o.clock ?? Date.now)();
    if (this.#usingFallback && now < this.#nextProbeAt) return fallback();
    this.#nextProbeAt = now + this.#o.retryPrimaryAfterMs;
    let result: T;
    try {
      result = await primary();
    } catch (err) {
      this.#nextProbeAt = (this.#o.clock ?? Date.now)() + this.#o.retryPrimaryAfterMs;
      if (!this.#usingFallback) {
        this.#usingFallback = true;
        this.#o.onSwitch?.(true, err);
      }
      return fallback();
    }
    if (this.#usingFallback) {
      this.#usingFallback = false;
      this.#o.onSwitch?.(false);
    }
    return result;
  }
}
