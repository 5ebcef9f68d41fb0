// Invariant: the billing cycle is the calendar month in UTC. periodStart is its first day
// (YYYY-MM-01) and periodEnd the Unix second at which the next month begins.

export interface BillingPeriod {
  periodStart: string;
  periodEnd: number;
}

export function billingPeriod(nowMs: number): BillingPeriod {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  return {
    periodStart: `${y}-${String(m + 1).padStart(2, '0')}-01`,
    periodEnd: Date.UTC(y, m + 1, 1) / 1000,
  };
}
