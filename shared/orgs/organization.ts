// Invariant: an Organization row read from Postgres always comes with its effective limits (plan
// table overlaid with per-org overrides); nothing else computes limits.
import { GEO_PRECISIONS, trackingMask, type GeoPrecision, type TrackingSettings } from '../analytics/model/tracking.ts';
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
  /** What its events keep of the visitor. */
  tracking: TrackingSettings;
  /** trackingMask(tracking), compiled once per load for the click path. */
  trackingMask: number;
  /** Days its raw events are kept; null follows ANALYTICS_RETENTION_DAYS. */
  retentionDays: number | null;
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
  track_referrer: boolean;
  track_user_agent: boolean;
  track_geo: string;
  honour_dnt: boolean;
  retention_days: number | null;
}

export function organizationFromRow(row: OrganizationRow): Organization {
  if (!isPlan(row.plan)) throw new Error(`organisation ${row.id} has unknown plan ${row.plan}`);
  const overrides: LimitOverrides = {};
  if (row.links_per_month !== null) overrides.linksPerMonth = row.links_per_month;
  if (row.clicks_per_month !== null) overrides.clicksPerMonth = row.clicks_per_month;
  if (row.crud_per_min !== null) overrides.crudPerMin = row.crud_per_min;
  if (row.analytics_per_min !== null) overrides.analyticsPerMin = row.analytics_per_min;
  if (row.export_per_min !== null) overrides.exportPerMin = row.export_per_min;
  if (!(GEO_PRECISIONS as readonly string[]).includes(row.track_geo)) throw new Error(`organisation ${row.id} has unknown geo precision ${row.track_geo}`);
  const tracking: TrackingSettings = {
    referrer: row.track_referrer,
    userAgent: row.track_user_agent,
    geo: row.track_geo as GeoPrecision,
    dnt: row.honour_dnt,
  };
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    timezone: row.timezone,
    suspended: row.suspended,
    require2fa: row.require_2fa,
    overrides,
    limits: effectiveLimits(row.plan, overrides),
    tracking,
    trackingMask: trackingMask(tracking),
    retentionDays: row.retention_days,
  };
}

export const ORG_COLUMNS =
  'id, name, plan, timezone, suspended, require_2fa, links_per_month, clicks_per_month, crud_per_min, analytics_per_min, export_per_min, track_referrer, track_user_agent, track_geo, honour_dnt, retention_days';
