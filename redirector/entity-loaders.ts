// Invariant: these are the only Postgres reads on the redirect path. Each loads many keys in one
// statement and returns the entities found by key (Data shape); a missing key means the entity
// does not exist (an app that was removed still exists, inactive; a domain that was removed does
// not). Rows are validated here, so caches only ever hold well-formed values.
import type { Sql } from '../shared/db/database.ts';
import type { LinkRow } from '../shared/links/link-row.ts';
import { isPlan } from '../shared/orgs/plans.ts';
import type { AppPlatform, AppRecord, DeepLinkEntry, DomainRecord, LinkData, OrgData } from './cached-entities.ts';

/** The columns of shared/links/link-row.ts the redirect path reads, plus framing refusal; deep_links stays unknown until validated. */
type RedirectLinkRow = Pick<
  LinkRow,
  | 'id' | 'org_id' | 'short_code' | 'url' | 'is_active' | 'cloak_enabled' | 'utm_source' | 'utm_medium' | 'utm_campaign'
  | 'enable_custom_metadata' | 'custom_metadata_title' | 'custom_metadata_description' | 'custom_metadata_image_url'
  | 'domain_host' | 'preview_title' | 'preview_description' | 'preview_image_url'
> & { deep_links: unknown; preview_frame_refused: boolean | null };

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

export async function loadLinks(sql: Sql, shortCodes: readonly string[]): Promise<Map<string, LinkData>> {
  const rows = await sql<RedirectLinkRow[]>`
    select l.id, l.org_id, l.short_code, l.url, l.is_active, l.cloak_enabled,
           l.utm_source, l.utm_medium, l.utm_campaign, l.enable_custom_metadata,
           l.custom_metadata_title, l.custom_metadata_description, l.custom_metadata_image_url,
           l.deep_links, d.host as domain_host,
           p.title as preview_title, p.description as preview_description,
           p.image_url as preview_image_url, p.frame_refused as preview_frame_refused
    from links l
    left join domains d on d.id = l.domain_id
    left join destination_previews p on p.url = l.url
    where l.short_code = any(${shortCodes as string[]}::text[])`;
  return new Map(rows.map((row) => [row.short_code, linkFromRow(row)]));
}

function linkFromRow(row: RedirectLinkRow): LinkData {
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function loadOrgs(sql: Sql, orgIds: readonly string[]): Promise<Map<string, OrgData>> {
  const ids = orgIds.filter((id) => UUID.test(id));
  const out = new Map<string, OrgData>();
  if (ids.length === 0) return out;
  const rows = await sql<{ id: string; plan: string; clicks_per_month: number | null }[]>`
    select id, plan, clicks_per_month from organizations where id = any(${ids}::uuid[])`;
  for (const row of rows) if (isPlan(row.plan)) out.set(row.id, { id: row.id, plan: row.plan, clicksPerMonthOverride: row.clicks_per_month });
  return out;
}

export async function loadApps(sql: Sql, mobileAppIds: readonly string[]): Promise<Map<string, AppRecord>> {
  const rows = await sql<{ mobile_app_id: string; org_id: string; platform: string; store_url: string; active: boolean }[]>`
    select mobile_app_id, org_id, platform, store_url, active from mobile_apps where mobile_app_id = any(${mobileAppIds as string[]}::text[])`;
  const out = new Map<string, AppRecord>();
  for (const row of rows) {
    const platform = row.platform as AppPlatform;
    if (platform !== 'IOS' && platform !== 'ANDROID' && platform !== 'WEB') continue;
    out.set(row.mobile_app_id, { mobileAppId: row.mobile_app_id, orgId: row.org_id, platform, storeUrl: row.store_url, active: row.active });
  }
  return out;
}

export async function loadDomains(sql: Sql, hosts: readonly string[]): Promise<Map<string, DomainRecord>> {
  const rows = await sql<{ host: string; org_id: string }[]>`
    select host, org_id from domains where host = any(${hosts as string[]}::text[]) and active`;
  return new Map(rows.map((r) => [r.host, { host: r.host, orgId: r.org_id }]));
}
