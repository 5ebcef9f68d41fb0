// Invariant: domain code reports countable events through this port only and never imports a
// metrics library; every method is a synchronous, allocation-free increment that cannot throw.
// The composition of each process decides where the counts go (prometheus-metrics.ts), and
// noTelemetry is the default wherever none was given.

export interface Telemetry {
  /** A request refused by a rate limiter (429), by scope (the bucket it was counted in). */
  rateLimitRejected(scope: string): void;
  /** A destination preview refresh finished: changed, unchanged, fresh (skipped) or failed. */
  previewFetched(outcome: string): void;
}

export const noTelemetry: Telemetry = {
  rateLimitRejected: () => {},
  previewFetched: () => {},
};
