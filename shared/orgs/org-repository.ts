// Invariant: organisations are created and changed only here; every change that a redirect
// depends on (plan, limits, suspension, tracking switches) commits together with its organisation invalidation in
// the outbox.
import { isUuid } from '../ids/model/uuid.ts';
import type { Sql } from '../db/database.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import type { Tx } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { fieldProblem } from '../errors/domain-errors.ts';
import { ORG_COLUMNS, organizationFromRow, type Organization, type OrganizationRow } from './organization.ts';
import type { LimitOverrides, Plan } from './plans.ts';
import type { TrackingSettings } from '../analytics/model/tracking.ts';
import { isRetentionDays, MAX_RETENTION_DAYS } from '../analytics/model/retention.ts';

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const orgNotFound = (id: string) => new AppError('EN001', `Organization '${id}' not found`);

export async function createOrganization(sql: Sql | Tx, input: { name: string; plan: Plan; timezone?: string; isDemo?: boolean }): Promise<Organization> {
  const timezone = input.timezone ?? 'Europe/Berlin';
  if (!isTimeZone(timezone)) throw new AppError('VE001', `Unknown time zone '${timezone}'`);
  const [row] = await sql<OrganizationRow[]>`
    insert into organizations (name, plan, timezone, is_demo)
    values (${input.name}, ${input.plan}, ${timezone}, ${input.isDemo ?? false})
    returning ${sql.unsafe(ORG_COLUMNS)}`;
  if (!row) throw new Error('insert into organizations returned no row');
  return organizationFromRow(row);
}

export async function getOrganization(sql: Sql | Tx, id: string): Promise<Organization> {
  if (!isUuid(id)) throw orgNotFound(id);
  const [row] = await sql<OrganizationRow[]>`select ${sql.unsafe(ORG_COLUMNS)} from organizations where id = ${id}`;
  if (!row) throw orgNotFound(id);
  return organizationFromRow(row);
}

/** Every organisation, oldest first (admin listing). */
export async function listOrganizations(sql: Sql): Promise<Organization[]> {
  const rows = await sql<OrganizationRow[]>`select ${sql.unsafe(ORG_COLUMNS)} from organizations order by created_at, id`;
  return rows.map(organizationFromRow);
}

/** Runs one change of organisation `id` in a transaction that also queues its invalidation. */
function changeOrganization(sql: Sql, id: string, change: (tx: Tx, current: Organization) => Promise<OrganizationRow | undefined>): Promise<Organization> {
  return sql.begin(async (tx) => {
    const current = await getOrganization(tx, id);
    const row = await change(tx, current);
    if (!row) throw orgNotFound(id);
    await enqueueInvalidations(tx, [{ kind: 'org', orgId: id }]);
    return organizationFromRow(row);
  }) as Promise<Organization>;
}

export function setPlan(sql: Sql, id: string, plan: Plan): Promise<Organization> {
  return changeOrganization(sql, id, async (tx) => {
    const [row] = await tx<OrganizationRow[]>`update organizations set plan = ${plan} where id = ${id} returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

export function setSuspended(sql: Sql, id: string, suspended: boolean): Promise<Organization> {
  return changeOrganization(sql, id, async (tx) => {
    const [row] = await tx<OrganizationRow[]>`update organizations set suspended = ${suspended} where id = ${id} returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

/** Sets the given overrides; undefined keeps one, null clears it back to the plan default. */
export function setLimits(sql: Sql, id: string, limits: { [K in keyof LimitOverrides]?: number | null }): Promise<Organization> {
  return changeOrganization(sql, id, async (tx, current) => {
    const pick = (k: keyof LimitOverrides) => (limits[k] === undefined ? (current.overrides[k] ?? null) : limits[k]);
    const [row] = await tx<OrganizationRow[]>`
      update organizations set
        links_per_month = ${pick('linksPerMonth')},
        clicks_per_month = ${pick('clicksPerMonth')},
        crud_per_min = ${pick('crudPerMin')},
        analytics_per_min = ${pick('analyticsPerMin')},
        export_per_min = ${pick('exportPerMin')}
      where id = ${id}
      returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

/** Sets the given tracking switches; those left undefined keep their values. Clicks follow within the invalidation's delivery. */
export function setTracking(sql: Sql, id: string, change: Partial<TrackingSettings>): Promise<Organization> {
  return changeOrganization(sql, id, async (tx, current) => {
    const c = current.tracking;
    const t: TrackingSettings = {
      referrer: change.referrer ?? c.referrer,
      userAgent: change.userAgent ?? c.userAgent,
      geo: change.geo ?? c.geo,
      dnt: change.dnt ?? c.dnt,
    };
    const [row] = await tx<OrganizationRow[]>`
      update organizations set track_referrer = ${t.referrer}, track_user_agent = ${t.userAgent}, track_geo = ${t.geo}, honour_dnt = ${t.dnt}
      where id = ${id} returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

/** Sets the organisation's raw event retention in days; null follows the service's ANALYTICS_RETENTION_DAYS. */
export function setRetention(sql: Sql, id: string, days: number | null): Promise<Organization> {
  if (days !== null && !isRetentionDays(days)) {
    throw fieldProblem('retentionDays', `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or empty to follow the service's setting`);
  }
  return changeOrganization(sql, id, async (tx) => {
    const [row] = await tx<OrganizationRow[]>`update organizations set retention_days = ${days} where id = ${id} returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

/** The dashboard's organisation settings: name, reporting time zone, and whether every member needs 2FA. */
export function updateOrganizationSettings(sql: Sql, id: string, settings: { name: string; timezone: string; require2fa: boolean }): Promise<Organization> {
  const name = settings.name.trim();
  if (name === '' || name.length > 200) throw fieldProblem('name', 'must be 1 to 200 characters');
  if (!isTimeZone(settings.timezone)) throw fieldProblem('timezone', `unknown time zone '${settings.timezone}'`);
  return changeOrganization(sql, id, async (tx) => {
    const [row] = await tx<OrganizationRow[]>`
      update organizations set name = ${name}, timezone = ${settings.timezone}, require_2fa = ${settings.require2fa}
      where id = ${id} returning ${tx.unsafe(ORG_COLUMNS)}`;
    return row;
  });
}

export async function findDemoOrganization(sql: Sql): Promise<Organization | null> {
  const [row] = await sql<OrganizationRow[]>`select ${sql.unsafe(ORG_COLUMNS)} from organizations where is_demo order by created_at limit 1`;
  return row ? organizationFromRow(row) : null;
}

/** The organisation, or null when there is none of that id. */
export async function findOrganization(sql: Sql | Tx, id: string): Promise<Organization | null> {
  if (!isUuid(id)) return null;
  const [row] = await sql<OrganizationRow[]>`select ${sql.unsafe(ORG_COLUMNS)} from organizations where id = ${id}`;
  return row ? organizationFromRow(row) : null;
}

/** The organisations with their own raw event retention (days), for the retention sweep. */
export async function organisationRetentions(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; retention_days: number }[]>`select id, retention_days from organizations where retention_days is not null`;
  return new Map(rows.map((r) => [r.id, r.retention_days]));
}

/** Organisations by id (redirect path: one query for many ids); ids that are not UUIDs match nothing. */
export async function findOrganizationsByIds(sql: Sql, ids: readonly string[]): Promise<Map<string, Organization>> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return new Map();
  const rows = await sql<OrganizationRow[]>`select ${sql.unsafe(ORG_COLUMNS)} from organizations where id = any(${valid}::uuid[])`;
  return new Map(rows.map((r) => [r.id, organizationFromRow(r)]));
}
