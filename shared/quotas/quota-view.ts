// Invariant: the answer to "may one more click of this organisation be served now": allowed, or
// refused with what the QE002 error reports (the count, the limit, the period's end, the plan).
import type { Plan } from '../orgs/plans.ts';

export type QuotaView =
  | { allowed: true }
  | {
      allowed: false;
      currentClicks: number;
      clicksLimit: number;
      /** Unix seconds at which the current billing period ends. */
      periodEnd: number;
      plan: Plan;
    };
