// Invariant: mobile apps are never deleted, only deactivated; mobileAppId is 12 characters of
// [A-Za-z0-9+/] from a CSPRNG and is passed verbatim everywhere (never URL-encoded or split). A
// change of an existing app commits together with its app invalidation in the outbox.
import { randomInt } from 'node:crypto';
import type { Sql, Tx } from '../db/database.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import { AppError } from '../errors/app-error.ts';
import type { Platform } from './platform.ts';

export interface MobileApp {
  appId: number;
  mobileAppId: string;
  orgId: string;
  name: string;
  platform: Platform;
  storeUrl: string;
  active: boolean;
}

interface AppRow {
  id: string;
  mobile_app_id: string;
  org_id: string;
  name: string;
  platform: Platform;
  store_url: string;
  active: boolean;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function generateMobileAppId(): string {
  let id = '';
  for (let i = 0; i < 12; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

const fromRow = (r: AppRow): MobileApp => ({
  appId: Number(r.id),
  mobileAppId: r.mobile_app_id,
  orgId: r.org_id,
  name: r.name,
  platform: r.platform,
  storeUrl: r.store_url,
  active: r.active,
});

const appNotFound = (id: string) => new AppError('EN001', `Mobile app '${id}' not found`);

export async function registerApp(sql: Sql, input: { orgId: string; name: string; platform: Platform; storeUrl: string }): Promise<MobileApp> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await sql<AppRow[]>`
      insert into mobile_apps (mobile_app_id, org_id, name, platform, store_url)
      values (${generateMobileAppId()}, ${input.orgId}, ${input.name}, ${input.platform}, ${input.storeUrl})
      on conflict (mobile_app_id) do nothing
      returning *`;
    if (row) return fromRow(row);
  }
  throw new Error('could not allocate a unique mobileAppId');
}

export function updateStoreUrl(sql: Sql, orgId: string, mobileAppId: string, storeUrl: string): Promise<MobileApp> {
  return changeApp(
    sql,
    orgId,
    mobileAppId,
    (tx) => tx<AppRow[]>`
    update mobile_apps set store_url = ${storeUrl}, updated_at = now()
    where org_id = ${orgId} and mobile_app_id = ${mobileAppId} returning *`,
  );
}

export function removeApp(sql: Sql, orgId: string, mobileAppId: string): Promise<MobileApp> {
  return changeApp(
    sql,
    orgId,
    mobileAppId,
    (tx) => tx<AppRow[]>`
    update mobile_apps set active = false, updated_at = now()
    where org_id = ${orgId} and mobile_app_id = ${mobileAppId} returning *`,
  );
}

function changeApp(sql: Sql, _orgId: string, mobileAppId: string, update: (tx: Tx) => Promise<AppRow[]>): Promise<MobileApp> {
  return sql.begin(async (tx) => {
    const [row] = await update(tx);
    if (!row) throw appNotFound(mobileAppId);
    await enqueueInvalidations(tx, [{ kind: 'app', mobileAppId: row.mobile_app_id }]);
    return fromRow(row);
  }) as Promise<MobileApp>;
}

/** Apps of the organisation with these ids (active or not), keyed by mobileAppId. */
export async function findApps(sql: Sql | Tx, orgId: string, mobileAppIds: readonly string[]): Promise<Map<string, MobileApp>> {
  if (mobileAppIds.length === 0) return new Map();
  const rows = await sql<AppRow[]>`select * from mobile_apps where org_id = ${orgId} and mobile_app_id = any(${[...mobileAppIds]})`;
  return new Map(rows.map((r) => [r.mobile_app_id, fromRow(r)]));
}

export async function listApps(sql: Sql, orgId: string): Promise<MobileApp[]> {
  const rows = await sql<AppRow[]>`select * from mobile_apps where org_id = ${orgId} order by id`;
  return rows.map(fromRow);
}

/** Apps of any organisation by mobileAppId, active or not (redirect path: one query for many ids). */
export async function findAppsByMobileAppIds(sql: Sql, mobileAppIds: readonly string[]): Promise<Map<string, MobileApp>> {
  const rows = await sql<AppRow[]>`select * from mobile_apps where mobile_app_id = any(${mobileAppIds as string[]}::text[])`;
  return new Map(rows.map((r) => [r.mobile_app_id, fromRow(r)]));
}
