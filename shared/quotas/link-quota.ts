// Invariant: a link creation and its LINKS_PER_MONTH count commit in the same transaction. On a
// hard-capped plan (FREE) the conditional upsert refuses the slot at the cap, so concurrent
// creates can never exceed it; paid plans always get the slot and the excess is overage.
import type { Tx } from '../db/database.ts';
import { quotaExceeded } from '../orgs/plan-errors.ts';
import type { Organization } from '../orgs/organization.ts';
import { isHardCapped, suggestLimitUpgrade } from '../orgs/plans.ts';
import { billingPeriod } from './billing-period.ts';

export async function consumeLinkSlot(tx: Tx, org: Organization, nowMs: number): Promise<void> {
  const { periodStart } = billingPeriod(nowMs);
  const limit = org.limits.linksPerMonth;
  if (!isHardCapped(org.plan)) {
    await tx`
      insert into usage_counters (org_id, period_start, links) values (${org.id}, ${periodStart}, 1)
      on conflict (org_id, period_start) do update set links = usage_counters.links + 1`;
    return;
  }
  const granted =
    limit > 0
      ? await tx`
          insert into usage_counters (org_id, period_start, links) values (${org.id}, ${periodStart}, 1)
          on conflict (org_id, period_start) do update set links = usage_counters.links + 1
          where usage_counters.links < ${limit}
          returning links`
      : [];
  if (granted.length === 0) {
    const [row] = await tx<{ links: number }[]>`select links from usage_counters where org_id = ${org.id} and period_start = ${periodStart}`;
    throw quotaExceeded('LINKS_PER_MONTH', row?.links ?? 0, limit, org.plan, suggestLimitUpgrade(org.plan, 'linksPerMonth'));
  }
}
