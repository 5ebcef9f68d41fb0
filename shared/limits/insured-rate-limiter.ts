// Invariant: a rate limiter that keeps answering when its shared store does not: every decision
// goes to the primary (Redis) limiter, and when that call fails (Redis down, command timed out)
// the same call is answered by the insurance limiter held in this process's memory, with the
// same limit, as rate-limiter-flexible's insuranceLimiter does. While Redis is down each process
// therefore enforces the limit on its own share of the traffic, and none fails because of it.
// After a failure the primary is tried again only once per retry interval (one probe, the
// others go straight to the insurance), so during an outage only the probing request waits for
// the command timeout.
import { Failover } from '../failover/failover.ts';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';

export interface InsuredRateLimiterOptions {
  primary: RateLimiter;
  insurance: RateLimiter;
  /** After a primary failure, calls go to the insurance for this long before the next probe (ms). Default 1000. */
  retryPrimaryAfterMs?: number;
  clock?: () => number;
  /** Told once per failure streak when the insurance takes over, and when the primary is back. */
  onSwitch?: (usingInsurance: boolean, cause?: unknown) => void;
}

export class InsuredRateLimiter implements RateLimiter {
  readonly #o: InsuredRateLimiterOptions;
  readonly #failover: Failover;

  constructor(options: InsuredRateLimiterOptions) {
    this.#o = options;
    this.#failover = new Failover({ retryPrimaryAfterMs: options.retryPrimaryAfterMs ?? 1_000, onSwitch: options.onSwitch, clock: options.clock });
  }

  /** True while the last primary call failed. */
  get usingInsurance(): boolean {
    return this.#failover.usingFallback;
  }

  consume(key: string, limitPerMin: number): Promise<RateDecision> {
    return this.#failover.run(
      () => this.#o.primary.consume(key, limitPerMin),
      () => this.#o.insurance.consume(key, limitPerMin),
    );
  }

  async close(): Promise<void> {
    await this.#o.primary.close();
    await this.#o.insurance.close();
  }
}
