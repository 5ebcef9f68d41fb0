// Invariant: test data is written with plain SQL, the way any writer would leave it in Postgres;
// helpers return the ids they created and never read redirector state.
import { randomBytes } from 'node:crypto';
import type { Sql } from '../../shared/db/database.ts';
import type { Platform } from '../../shared/apps/platform.ts';
import type { DeepLink } from '../../shared/links/link.ts';

export async function seedOrg(sql: Sql, plan: 'FREE' | 'PRO' | 'BUSINESS' | 'ENTERPRISE' = 'PRO', clicksPerMonth: number | null = null): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into organizations (name, plan, clicks_per_month) values (${`org-${randomBytes(3).toString('hex')}`}, ${plan}, ${clicksPerMonth})
    returning id`;
  return row!.id;
}

export interface SeedLink {
  orgId: string;
  shortCode?: string;
  url?: string;
  domainId?: number | null;
  isActive?: boolean;
  cloakEnabled?: boolean;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  enableCustomMetadata?: boolean;
  customTitle?: string | null;
  customDescription?: string | null;
  customImageUrl?: string | null;
  deepLinks?: DeepLink[];
}

export const randomCode = (): string => `t${randomBytes(6).toString('hex')}`;

export async function seedLink(sql: Sql, l: SeedLink): Promise<{ id: string; shortCode: string }> {
  const shortCode = l.shortCode ?? randomCode();
  const [row] = await sql<{ id: string }[]>`
    insert into links (org_id, short_code, url, domain_id, is_active, cloak_enabled, utm_source, utm_medium, utm_campaign,
                       enable_custom_metadata, custom_metadata_title, custom_metadata_description, custom_metadata_image_url,
                       deep_links, created_by, updated_by, created_via, last_modified_via)
    values (${l.orgId}, ${shortCode}, ${l.url ?? 'https://example.com/landing'}, ${l.domainId ?? null}, ${l.isActive ?? true},
            ${l.cloakEnabled ?? false}, ${l.utmSource ?? null}, ${l.utmMedium ?? null}, ${l.utmCampaign ?? null},
            ${l.enableCustomMetadata ?? false}, ${l.customTitle ?? null}, ${l.customDescription ?? null}, ${l.customImageUrl ?? null},
            ${sql.json((l.deepLinks ?? []) as unknown as Parameters<Sql['json']>[0])}, 'test', 'test', 'EXTERNAL', 'EXTERNAL')
    returning id`;
  return { id: row!.id, shortCode };
}

export async function seedApp(sql: Sql, orgId: string, platform: Platform, storeUrl: string): Promise<{ rowId: number; mobileAppId: string }> {
  const mobileAppId = randomBytes(9)
    .toString('base64')
    .slice(0, 12)
    .replace(/[^A-Za-z0-9+/]/g, 'A');
  const [row] = await sql<{ id: string }[]>`
    insert into mobile_apps (mobile_app_id, org_id, name, platform, store_url)
    values (${mobileAppId}, ${orgId}, ${`app-${platform}`}, ${platform}, ${storeUrl}) returning id`;
  return { rowId: Number(row!.id), mobileAppId };
}

export async function seedDomain(sql: Sql, orgId: string, host: string): Promise<number> {
  const [row] = await sql<{ id: string }[]>`insert into domains (org_id, host) values (${orgId}, ${host}) returning id`;
  return Number(row!.id);
}
