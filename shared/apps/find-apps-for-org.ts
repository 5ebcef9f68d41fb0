// Invariant: a page of links resolves all its deep-link apps in one query.
import type { Sql } from '../db/database.ts';
import type { LinkRow } from '../links/link-row.ts';
import { findApps, type MobileApp } from './mobile-app-repository.ts';

export async function findAppsForOrg(sql: Sql, orgId: string, rows: readonly Pick<LinkRow, 'deep_links'>[]): Promise<Map<string, MobileApp>> {
  const ids = [...new Set(rows.flatMap((r) => r.deep_links.map((d) => d.mobileAppId)))];
  return findApps(sql, orgId, ids);
}
