// Invariant: a token bucket per key holding at most `limitPerMin` tokens, refilled continuously
// at limitPerMin/60 tokens a second; a request costs one token. All adapters answer alike for the
// same sequence of calls and clock (one contract suite runs against each).

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until one token is available again (0 when allowed). */
  retryAfterSeconds: number;
  /** Tokens left after this call, floored. */
  remaining: number;
}

export interface RateLimiter {
  consume(key: string, limitPerMin: number): Promise<RateDecision>;
  close(): Promise<void>;
}
