// Invariant: an Organization row read from Postgres always comes with its effective limits (plan
// table overlaid with per-org overrides); nothing else computes limits.
import { effectiveLimits, isPlan, type LimitOverrides, type Plan, type PlanLimits } from './plans.ts';

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  timezone: string;
  suspended: boolean;
  /** Members must have two-factor authentication to act in the organisation (the dashboard's AU005). */
  require2fa: boolean;
  overrides: LimitOverrides;
  limits: PlanLimits;
}

export interface OrganizationRow {
  id: string;
  name: string;
  plan: string;
  timezone: string;
  suspended: boolean;
  require_2fa: boolean;
  links_per_month: number | null;
  clicks_per_month: number | null;
  crud_per_min: number | null;
  analytics_per_min: number | null;
  export_per_min: number | null;
}

export function organizationFromRow(row: OrganizationRow): Organization {
  if (!isPlan(row.plan)) throw new Error(`organisation ${row.id} has unknown plan ${row.plan}`);
  const overrides: LimitOverrides = {};
  if (row.links_per_month !== null) overrides.linksPerMonth = row.links_per_month;
  if (row.clicks_per_month !== null) overrides.clicksPerMonth = row.clicks_per_month;
  if (row.crud_per_min !== null) overrides.crudPerMin = row.crud_per_min;
  if (row.analytics_per_min !== null) overrides.analyticsPerMin = row.analytics_per_min;
  if (row.export_per_min !== null) overrides.exportPerMin = row.export_per_min;
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    timezone: row.timezone,
    suspended: row.suspended,
    require2fa: row.require_2fa,
    overrides,
    limits: effectiveLimits(row.plan, overrides),
  };
}

export const ORG_COLUMNS =
  'id, name, plan, timezone, suspended, require_2fa, links_per_month, clicks_per_month, crud_per_min, analytics_per_min, export_per_min';
