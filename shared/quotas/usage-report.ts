// Invariant: the usage report reads the durable counters of the current UTC month and prices
// overage per started block of 10,000 (30 € for links, 2.50 € for clicks). FREE never has
// overage: it is hard-stopped at its limits.
import type { Sql } from '../db/database.ts';
import type { Organization } from '../orgs/organization.ts';
import { isHardCapped, OVERAGE_EUR } from '../orgs/plans.ts';
import { billingPeriod } from './billing-period.ts';

export interface UsageReport {
  orgId: string;
  plan: string;
  periodStart: string;
  periodEnd: number;
  links: { used: number; limit: number; overage: number; overageEur: number };
  clicks: { used: number; limit: number; overage: number; overageEur: number };
  totalOverageEur: number;
}

const BLOCK = 10_000;

function line(used: number, limit: number, eurPerBlock: number, capped: boolean) {
  const overage = capped ? 0 : Math.max(0, used - limit);
  return { used, limit, overage, overageEur: Math.ceil(overage / BLOCK) * eurPerBlock };
}

export async function usageReport(sql: Sql, org: Organization, nowMs: number): Promise<UsageReport> {
  const period = billingPeriod(nowMs);
  const [row] = await sql<{ links: number; clicks: string }[]>`
    select links, clicks from usage_counters where org_id = ${org.id} and period_start = ${period.periodStart}`;
  const capped = isHardCapped(org.plan);
  const links = line(row?.links ?? 0, org.limits.linksPerMonth, OVERAGE_EUR.linksPer10k, capped);
  const clicks = line(Number(row?.clicks ?? 0), org.limits.clicksPerMonth, OVERAGE_EUR.clicksPer10k, capped);
  return {
    orgId: org.id,
    plan: org.plan,
    periodStart: period.periodStart,
    periodEnd: period.periodEnd,
    links,
    clicks,
    totalOverageEur: links.overageEur + clicks.overageEur,
  };
}
