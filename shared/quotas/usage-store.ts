// Invariant: usage_counters.clicks only grows, by the clicks this process actually served, added
// in one statement per flush; it is the durable count the Redis counter is re-seeded from.
import type { Sql } from '../db/database.ts';

export interface UsageDelta {
  orgId: string;
  periodStart: string;
  clicks: number;
}

export interface UsageTotal {
  orgId: string;
  periodStart: string;
  clicks: number;
}

export async function addClickUsage(sql: Sql, deltas: readonly UsageDelta[]): Promise<UsageTotal[]> {
  if (deltas.length === 0) return [];
  const rows = await sql<{ org_id: string; period_start: string; clicks: string }[]>`
    insert into usage_counters (org_id, period_start, clicks)
    select * from unnest(${deltas.map((d) => d.orgId)}::uuid[], ${deltas.map((d) => d.periodStart)}::date[], ${deltas.map((d) => d.clicks)}::bigint[])
    on conflict (org_id, period_start) do update set clicks = usage_counters.clicks + excluded.clicks
    returning org_id, to_char(period_start, 'YYYY-MM-DD') as period_start, clicks`;
  return rows.map((r) => ({ orgId: r.org_id, periodStart: r.period_start, clicks: Number(r.clicks) }));
}

export async function readClickUsage(sql: Sql, orgId: string, periodStart: string): Promise<number> {
  const [row] = await sql<{ clicks: string }[]>`
    select clicks from usage_counters where org_id = ${orgId} and period_start = ${periodStart}::date`;
  return row ? Number(row.clicks) : 0;
}
