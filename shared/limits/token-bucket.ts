// Invariant: the token-bucket arithmetic is exact integer arithmetic. Tokens are counted in units
// of 1/60000 of a token, so a bucket of L tokens a minute holds L*60000 units, gains exactly L
// units per elapsed millisecond and a request costs 60000 units. An absent bucket is a full one,
// so a bucket may be forgotten once it has refilled (`msUntilFull`). The Lua script of
// redis-rate-limiter.ts mirrors this file line by line; both must change together.
import type { RateDecision } from './rate-limiter.ts';

/** Units one request costs (= units a bucket gains per minute per token of its limit). */
export const UNITS_PER_TOKEN = 60_000;

/** Highest limit the exact arithmetic allows (capacity stays far below 2^53). */
export const MAX_LIMIT_PER_MIN = 1_000_000_000;

export interface BucketState {
  /** Whole units held, 0 ≤ units ≤ capacity. */
  units: number;
  /** Milliseconds (integer) of the last refill. */
  at: number;
}

export interface BucketStep {
  state: BucketState;
  decision: RateDecision;
  /** Milliseconds after which the bucket is full again and may be forgotten (≥ 1). */
  msUntilFull: number;
}

export function assertLimitPerMin(limitPerMin: number): void {
  if (!Number.isInteger(limitPerMin) || limitPerMin < 1 || limitPerMin > MAX_LIMIT_PER_MIN) {
    throw new RangeError(`limitPerMin must be an integer from 1 to ${MAX_LIMIT_PER_MIN}, got ${limitPerMin}`);
  }
}

/**
 * One request against a bucket at time `nowMs`. A missing state is a full bucket; a changed limit
 * clamps the held tokens to the new capacity; a clock that steps back refills nothing.
 */
export function takeToken(previous: BucketState | undefined, limitPerMin: number, nowMs: number): BucketStep {
  const now = Math.floor(nowMs);
  const capacity = limitPerMin * UNITS_PER_TOKEN;
  let units = previous ? previous.units : capacity;
  let at = previous ? previous.at : now;
  if (now > at) {
    units += (now - at) * limitPerMin;
    at = now;
  }
  if (units > capacity) units = capacity;

  let decision: RateDecision;
  if (units >= UNITS_PER_TOKEN) {
    units -= UNITS_PER_TOKEN;
    decision = { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(units / UNITS_PER_TOKEN) };
  } else {
    const retry = Math.ceil((UNITS_PER_TOKEN - units) / (limitPerMin * 1000));
    decision = { allowed: false, retryAfterSeconds: Math.max(1, retry), remaining: 0 };
  }
  const msUntilFull = Math.max(1, Math.ceil((capacity - units) / limitPerMin));
  return { state: { units, at }, decision, msUntilFull };
}
