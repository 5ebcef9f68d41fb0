// Invariant: what an attempt's answer means for its message, decided here only, as a pure
// function of the answer, the failures before it and a random draw: 2xx delivered; 410 gone (the
// endpoint is disabled); anything else (3xx and no answer included) a failure, retried after
// the schedule's delay for this failure (spread by ±RETRY_JITTER, so messages that failed together
// do not all come back together), or after Retry-After on a 429 or 503 (honoured up to
// MAX_RETRY_AFTER_MS), and failed for good once the schedule is spent. The worker records and
// counts the same outcome.

/** After the 1st, 2nd, … failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about a day and a half). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** A Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** Scheduled delays vary by this fraction either way. */
export const RETRY_JITTER = 0.1;

export interface AttemptAnswer {
  /** The HTTP status, null when nothing answered. */
  statusCode: number | null;
  /** A 429's or 503's Retry-After, in ms; null when absent or unreadable. */
  retryAfterMs: number | null;
}

export type Outcome = { kind: 'delivered' } | { kind: 'gone' } | { kind: 'failed' } | { kind: 'retry'; delayMs: number };

export interface RetryPolicy {
  schedule?: readonly number[];
  /** A draw in [0, 1); default Math.random. */
  random?: () => number;
}

/** The outcome of an attempt of a message that had failed `failures` times before it. */
export function outcomeOf(answer: AttemptAnswer, failures: number, policy: RetryPolicy = {}): Outcome {
  const status = answer.statusCode;
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  const schedule = policy.schedule ?? RETRY_SCHEDULE_MS;
  const failure = failures + 1;
  if (failure > schedule.length) return { kind: 'failed' };
  if ((status === 429 || status === 503) && answer.retryAfterMs !== null) return { kind: 'retry', delayMs: Math.min(answer.retryAfterMs, MAX_RETRY_AFTER_MS) };
  const base = schedule[failure - 1] as number;
  const spread = 1 + RETRY_JITTER * (2 * (policy.random ?? Math.random)() - 1);
  return { kind: 'retry', delayMs: Math.round(base * spread) };
}
