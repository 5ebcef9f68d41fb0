// Invariant: these are the only Postgres reads on the redirect path; each returns the entity's
// Data shape or null when it does not exist (an app that was removed still exists, inactive; a
// domain that was removed does not). Rows are validated here, so caches only ever hold
// well-formed values.
import type { Sql } from '../shared/db/database.ts';
import { isPlan } from '../shared/orgs/plans.ts';
import type { AppPlatform, AppRecord, DeepLinkEntry, DomainRecord, LinkData, OrgData } from './cached-entities.ts';

interface LinkRow {
  id: string;
  org_id: string;
  short_code: string;
  url: string;
  is_active: boolean;
  cloak_enabled: boolean;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  enable_custom_metadata: boolean;
  custom_metadata_title: string | null;
  custom_metadata_description: string | null;
  custom_metadata_image_url: string | null;
  deep_links: unknown;
  domain_host: string | null;
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
  preview_frame_refused: boolean | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function parseDeepLinks(value: unknown): DeepLinkEntry[] {
  if (!Array.isArray(value)) return [];
  const out: DeepLinkEntry[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    const mobileAppId = str(e.mobileAppId);
    if (mobileAppId === null) continue;
    const behaviour = e.linkBehaviour;
    out.push({
      appRowId: typeof e.appRowId === 'number' ? e.appRowId : Number(e.appRowId ?? 0),
      mobileAppId,
      deeplinkUrl: str(e.deeplinkUrl),
      fallbackUrl: str(e.fallbackUrl),
      linkBehaviour: behaviour === 'app' || behaviour === 'webBrowser' ? behaviour : null,
      fallbackEnabled: e.fallbackEnabled === true,
    });
  }
  return out;
}

export async function loadLink(sql: Sql, shortCode: string): Promise<LinkData | null> {
  const [row] = await sql<LinkRow[]>`
    select l.id, l.org_id, l.short_code, l.url, l.is_active, l.cloak_enabled,
           l.utm_source, l.utm_medium, l.utm_campaign, l.enable_custom_metadata,
           l.custom_metadata_title, l.custom_metadata_description, l.custom_metadata_image_url,
           l.deep_links, d.host as domain_host,
           p.title as preview_title, p.description as preview_description,
           p.image_url as preview_image_url, p.frame_refused as preview_frame_refused
    from links l
    left join domains d on d.id = l.domain_id
    left join destination_previews p on p.url = l.url
    where l.short_code = ${shortCode}`;
  if (!row) return null;
  return {
    id: row.id,
    orgId: row.org_id,
    shortCode: row.short_code,
    url: row.url,
    isActive: row.is_active,
    cloakEnabled: row.cloak_enabled,
    utmSource: row.utm_source,
    utmMedium: row.utm_medium,
    utmCampaign: row.utm_campaign,
    enableCustomMetadata: row.enable_custom_metadata,
    customMetadataTitle: row.custom_metadata_title,
    customMetadataDescription: row.custom_metadata_description,
    customMetadataImageUrl: row.custom_metadata_image_url,
    deepLinks: parseDeepLinks(row.deep_links),
    domainHost: row.domain_host,
    preview:
      row.preview_frame_refused === null
        ? null
        : {
            title: row.preview_title,
            description: row.preview_description,
            imageUrl: row.preview_image_url,
            frameRefused: row.preview_frame_refused,
          },
  };
}

export async function loadOrg(sql: Sql, orgId: string): Promise<OrgData | null> {
  const [row] = await sql<{ id: string; plan: string; clicks_per_month: number | null }[]>`
    select id, plan, clicks_per_month from organizations where id = ${orgId}`;
  if (!row || !isPlan(row.plan)) return null;
  return { id: row.id, plan: row.plan, clicksPerMonthOverride: row.clicks_per_month };
}

export async function loadApp(sql: Sql, mobileAppId: string): Promise<AppRecord | null> {
  const [row] = await sql<{ mobile_app_id: string; org_id: string; platform: string; store_url: string; active: boolean }[]>`
    select mobile_app_id, org_id, platform, store_url, active from mobile_apps where mobile_app_id = ${mobileAppId}`;
  if (!row) return null;
  const platform = row.platform as AppPlatform;
  if (platform !== 'IOS' && platform !== 'ANDROID' && platform !== 'WEB') return null;
  return { mobileAppId: row.mobile_app_id, orgId: row.org_id, platform, storeUrl: row.store_url, active: row.active };
}

export async function loadDomain(sql: Sql, host: string): Promise<DomainRecord | null> {
  const [row] = await sql<{ host: string; org_id: string }[]>`
    select host, org_id from domains where host = ${host} and active`;
  return row ? { host: row.host, orgId: row.org_id } : null;
}
