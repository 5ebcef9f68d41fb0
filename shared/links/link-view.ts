// Invariant: the Short URL object a client sees is built only here, from a LinkRow and the
// organisation's registered apps: server-controlled fields (smartLink, platform, storeUrl,
// effectivePreviewMetadata) are resolved at read time, timestamps keep their microseconds, and
// null members are omitted.
import type { MobileApp } from '../apps/mobile-app-repository.ts';
import { formatPgInstant } from '../time/instant.ts';
import { effectivePreviewMetadata, type PreviewMetadata } from '../previews/effective-preview-metadata.ts';
import type { LinkRow } from './link-row.ts';

export interface DeepLinkView {
  mobileAppId: string;
  deeplinkUrl?: string;
  fallbackUrl?: string;
  linkBehaviour?: string;
  fallbackEnabled: boolean;
  platform?: string;
  storeUrl?: string;
  appId?: number;
}

export interface LinkView {
  url: string;
  shortCode: string;
  shortLinkName?: string;
  smartLink: string;
  isActive: boolean;
  cloakEnabled: boolean;
  utmSource?: string;
  utmCampaign?: string;
  utmMedium?: string;
  enableCustomMetadata: boolean;
  customMetadataTitle?: string;
  customMetadataDescription?: string;
  customMetadataImageUrl?: string;
  effectivePreviewMetadata?: PreviewMetadata;
  deepLinks: DeepLinkView[];
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
  createdVia: 'INTERNAL' | 'EXTERNAL';
  lastModifiedVia: 'INTERNAL' | 'EXTERNAL';
}

export function smartLinkOf(row: Pick<LinkRow, 'domain_host' | 'short_code'>, defaultShortDomain: string): string {
  return `https://${row.domain_host ?? defaultShortDomain}/${row.short_code}`;
}

/** Drops members whose value is null or undefined (one level; nested objects are built clean). */
export function omitNulls<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

export interface ViewOptions {
  defaultShortDomain: string;
  /** Save responses carry deepLinks[].appId; list responses do not. */
  includeAppId: boolean;
}

export function toLinkView(row: LinkRow, apps: ReadonlyMap<string, MobileApp>, opts: ViewOptions): LinkView {
  const preview = effectivePreviewMetadata(
    {
      enableCustomMetadata: row.enable_custom_metadata,
      customMetadataTitle: row.custom_metadata_title,
      customMetadataDescription: row.custom_metadata_description,
      customMetadataImageUrl: row.custom_metadata_image_url,
    },
    { title: row.preview_title, description: row.preview_description, imageUrl: row.preview_image_url },
  );
  const deepLinks = row.deep_links.map((d) => {
    const app = apps.get(d.mobileAppId);
    return omitNulls<DeepLinkView>({
      mobileAppId: d.mobileAppId,
      deeplinkUrl: d.deeplinkUrl ?? undefined,
      fallbackUrl: d.fallbackUrl ?? undefined,
      linkBehaviour: d.linkBehaviour ?? undefined,
      fallbackEnabled: d.fallbackEnabled,
      platform: app?.platform,
      storeUrl: app?.storeUrl,
      appId: opts.includeAppId ? app?.appId : undefined,
    });
  });
  return omitNulls<LinkView>({
    url: row.url,
    shortCode: row.short_code,
    shortLinkName: row.short_link_name ?? undefined,
    smartLink: smartLinkOf(row, opts.defaultShortDomain),
    isActive: row.is_active,
    cloakEnabled: row.cloak_enabled,
    utmSource: row.utm_source ?? undefined,
    utmCampaign: row.utm_campaign ?? undefined,
    utmMedium: row.utm_medium ?? undefined,
    enableCustomMetadata: row.enable_custom_metadata,
    customMetadataTitle: row.custom_metadata_title ?? undefined,
    customMetadataDescription: row.custom_metadata_description ?? undefined,
    customMetadataImageUrl: row.custom_metadata_image_url ?? undefined,
    effectivePreviewMetadata: Object.keys(preview).length > 0 ? preview : undefined,
    deepLinks,
    createdAt: formatPgInstant(row.created_at),
    updatedAt: formatPgInstant(row.updated_at),
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdVia: row.created_via,
    lastModifiedVia: row.last_modified_via,
  });
}
