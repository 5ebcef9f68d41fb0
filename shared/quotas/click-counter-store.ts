// Invariant: a click counter per (organisation, billing period) that only ever grows past the
// plan limit through add() (paid plans, overage) and never through lease(): lease() raises the
// counter to at least `floor` (the durable count, in case the store lost it) and then grants at
// most `limit - counter` clicks, atomically. Adapters: memory (one process, embedded mode) and
// Redis (shared by every worker of every redirector host); both pass click-counter-store.contract.
export interface Lease {
  granted: number;
  /** The counter after the grant. */
  total: number;
}

export interface ClickCounterStore {
  lease(orgId: string, periodStart: string, floor: number, want: number, limit: number): Promise<Lease>;
  /** Adds `deltas` (negative values return unused leases); resolves with each counter after it. */
  add(deltas: readonly { orgId: string; periodStart: string; delta: number }[]): Promise<number[]>;
}
