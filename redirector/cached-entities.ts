// Invariant: the redirector caches four kinds of entity, each under its own key (link by short
// code, organisation by id, app by mobileAppId, custom domain by host), so every invalidation
// names exactly the keys to drop. The *Data shapes are what Postgres says and what the Redis tier
// stores as JSON; the *Record shapes add values derived purely from the data (computed once per
// cache fill, never per request).
import { effectivePreviewMetadata, type PreviewMetadata } from '../shared/previews/effective-preview-metadata.ts';
import { effectiveLimits, isHardCapped, type Plan } from '../shared/orgs/plans.ts';
import { safeWebUrl } from './safe-url.ts';
import { applyUtm } from './utm.ts';

export type EntityKind = 'link' | 'org' | 'app' | 'domain';
export const ENTITY_KINDS: readonly EntityKind[] = ['link', 'org', 'app', 'domain'];

export type LinkBehaviour = 'app' | 'webBrowser';
export type AppPlatform = 'IOS' | 'ANDROID' | 'WEB';

export interface DeepLinkEntry {
  appRowId: number;
  mobileAppId: string;
  deeplinkUrl: string | null;
  fallbackUrl: string | null;
  linkBehaviour: LinkBehaviour | null;
  fallbackEnabled: boolean;
}

export interface LinkData {
  id: string;
  orgId: string;
  shortCode: string;
  url: string;
  isActive: boolean;
  cloakEnabled: boolean;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  enableCustomMetadata: boolean;
  customMetadataTitle: string | null;
  customMetadataDescription: string | null;
  customMetadataImageUrl: string | null;
  deepLinks: DeepLinkEntry[];
  /** Host of the link's domain row, active or not (the domain cache decides whether it applies). */
  domainHost: string | null;
  preview: { title: string | null; description: string | null; imageUrl: string | null; frameRefused: boolean } | null;
}

export interface LinkRecord extends LinkData {
  /** The destination with the link's UTM tags applied. */
  destination: string;
  /** The destination as an absolute http(s) URL safe for href/src, or null (see safe-url.ts). */
  safeDestination: string | null;
  previewMetadata: PreviewMetadata;
  frameRefused: boolean;
}

export interface OrgData {
  id: string;
  plan: Plan;
  clicksPerMonthOverride: number | null;
}

export interface OrgRecord extends OrgData {
  clicksPerMonth: number;
  hardCapped: boolean;
}

export interface AppRecord {
  mobileAppId: string;
  orgId: string;
  platform: AppPlatform;
  storeUrl: string;
  active: boolean;
}

export interface DomainRecord {
  host: string;
  orgId: string;
}

// Records are built field by field, never by spreading: V8 gives every object cloned by spread its
// own map, which turns each property read on the hot path into a megamorphic lookup.
export function hydrateLink(data: LinkData): LinkRecord {
  const destination = applyUtm(data.url, data);
  return {
    id: data.id,
    orgId: data.orgId,
    shortCode: data.shortCode,
    url: data.url,
    isActive: data.isActive,
    cloakEnabled: data.cloakEnabled,
    utmSource: data.utmSource,
    utmMedium: data.utmMedium,
    utmCampaign: data.utmCampaign,
    enableCustomMetadata: data.enableCustomMetadata,
    customMetadataTitle: data.customMetadataTitle,
    customMetadataDescription: data.customMetadataDescription,
    customMetadataImageUrl: data.customMetadataImageUrl,
    deepLinks: data.deepLinks,
    domainHost: data.domainHost,
    preview: data.preview,
    destination,
    safeDestination: safeWebUrl(destination),
    previewMetadata: effectivePreviewMetadata(data, data.preview),
    frameRefused: data.preview?.frameRefused ?? false,
  };
}

export function hydrateOrg(data: OrgData): OrgRecord {
  const overrides = data.clicksPerMonthOverride === null ? {} : { clicksPerMonth: data.clicksPerMonthOverride };
  return {
    id: data.id,
    plan: data.plan,
    clicksPerMonthOverride: data.clicksPerMonthOverride,
    clicksPerMonth: effectiveLimits(data.plan, overrides).clicksPerMonth,
    hardCapped: isHardCapped(data.plan),
  };
}

/** Rough in-memory footprint of a link record, for the size-bounded LRU. */
export function linkRecordSize(r: LinkRecord): number {
  let n = 400 + 2 * (r.url.length + r.destination.length + r.shortCode.length);
  for (const d of r.deepLinks) n += 200 + 2 * ((d.deeplinkUrl?.length ?? 0) + (d.fallbackUrl?.length ?? 0));
  for (const v of Object.values(r.previewMetadata)) n += 2 * v.length;
  return n;
}
