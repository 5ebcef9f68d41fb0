// Invariant: a page of links resolves all its deep-link apps in one query.
import type { Sql } from '../db/database.ts';
import { findApps, type MobileApp } from './mobile-app-repository.ts';

export async function findAppsForOrg(
  sql: Sql,
  orgId: string,
  links: readonly { deepLinks: readonly { mobileAppId: string }[] }[],
): Promise<Map<string, MobileApp>> {
  const ids = [...new Set(links.flatMap((l) => l.deepLinks.map((d) => d.mobileAppId)))];
  return findApps(sql, orgId, ids);
}
