// Invariant: the billing cycle is the calendar month in UTC, computed only here. periodStart is
// its first day (YYYY-MM-01), periodEnd the Unix second at which the next month begins, and
// [startMs, endMs) the same span in milliseconds.

export interface BillingPeriod {
  periodStart: string;
  periodEnd: number;
  startMs: number;
  endMs: number;
}

export function billingPeriod(nowMs: number): BillingPeriod {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const startMs = Date.UTC(y, m, 1);
  const endMs = Date.UTC(y, m + 1, 1);
  return { periodStart: `${y}-${String(m + 1).padStart(2, '0')}-01`, periodEnd: endMs / 1000, startMs, endMs };
}
