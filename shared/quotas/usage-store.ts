// Invariant: usage_counters.clicks only grows, by the clicks the redirectors actually served,
// added in one statement per flush; it is the durable count the click counter store is re-seeded
// from. UsageStore is the port; Postgres is its one adapter (the usage report and the link quota
// read and write the same table).
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

export interface UsageStore {
  /** Adds served clicks (one statement for all deltas) and answers each counter after it. */
  add(deltas: readonly UsageDelta[]): Promise<UsageTotal[]>;
  /** Clicks of an organisation in the period beginning `periodStart` (YYYY-MM-01); 0 when none. */
  read(orgId: string, periodStart: string): Promise<number>;
}

export class PostgresUsageStore implements UsageStore {
  constructor(private readonly sql: Sql) {}

  async add(deltas: readonly UsageDelta[]): Promise<UsageTotal[]> {
    if (deltas.length === 0) return [];
    const rows = await this.sql<{ org_id: string; period_start: string; clicks: string }[]>`
      insert into usage_counters (org_id, period_start, clicks)
      select * from unnest(${deltas.map((d) => d.orgId)}::uuid[], ${deltas.map((d) => d.periodStart)}::date[], ${deltas.map((d) => d.clicks)}::bigint[])
      on conflict (org_id, period_start) do update set clicks = usage_counters.clicks + excluded.clicks
      returning org_id, to_char(period_start, 'YYYY-MM-DD') as period_start, clicks`;
    return rows.map((r) => ({ orgId: r.org_id, periodStart: r.period_start, clicks: Number(r.clicks) }));
  }

  async read(orgId: string, periodStart: string): Promise<number> {
    const [row] = await this.sql<{ clicks: string }[]>`
      select clicks from usage_counters where org_id = ${orgId} and period_start = ${periodStart}::date`;
    return row ? Number(row.clicks) : 0;
  }
}
