// Invariant: TEST-ONLY builders of the shared models (Organization, Link, MobileApp, Domain,
// DeepLink) with plain values, for unit tests that need no database. Each builds its model
// through the product's own constructor (buildLink, effectiveLimits), so derived members are
// what production computes.
import type { MobileApp } from '../../shared/apps/mobile-app-repository.ts';
import type { Platform } from '../../shared/apps/platform.ts';
import type { Domain } from '../../shared/domains/domain-repository.ts';
import { buildLink, type DeepLink, type Link, type StoredLink } from '../../shared/links/link.ts';
import type { Organization } from '../../shared/orgs/organization.ts';
import { DEFAULT_TRACKING, trackingMask } from '../../shared/analytics/model/tracking.ts';
import { effectiveLimits, type Plan } from '../../shared/orgs/plans.ts';

export function organizationOf(id: string, plan: Plan, clicksPerMonth: number | null = null): Organization {
  const overrides = clicksPerMonth === null ? {} : { clicksPerMonth };
  return {
    id,
    name: `org ${id}`,
    plan,
    timezone: 'Europe/Berlin',
    suspended: false,
    require2fa: false,
    overrides,
    limits: effectiveLimits(plan, overrides),
    tracking: DEFAULT_TRACKING,
    trackingMask: trackingMask(DEFAULT_TRACKING),
    retentionDays: null,
  };
}

export function linkOf(over: Partial<StoredLink> = {}): Link {
  return buildLink({
    id: 'link-1',
    orgId: 'org-1',
    shortCode: 'abcdefg',
    url: 'https://dest.example/',
    shortLinkName: null,
    domainId: null,
    domainHost: null,
    isActive: true,
    cloakEnabled: false,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    enableCustomMetadata: false,
    customMetadataTitle: null,
    customMetadataDescription: null,
    customMetadataImageUrl: null,
    deepLinks: [],
    expiresAt: null,
    maxClicks: null,
    expiredUrl: null,
    passwordHash: null,
    rules: [],
    preview: null,
    createdAt: '2026-01-01 00:00:00+00',
    updatedAt: '2026-01-01 00:00:00+00',
    createdBy: 'test',
    updatedBy: 'test',
    createdVia: 'EXTERNAL',
    lastModifiedVia: 'EXTERNAL',
    ...over,
  });
}

export function mobileAppOf(platform: Platform, orgId: string, over: Partial<MobileApp> = {}): MobileApp {
  return {
    appId: 1,
    mobileAppId: `app-${platform}`,
    orgId,
    name: `app ${platform}`,
    platform,
    storeUrl: `https://store.example/${platform}`,
    active: true,
    ...over,
  };
}

export function domainOf(host: string, orgId: string): Domain {
  return { id: 1, orgId, host, isPrimary: false, active: true };
}

export function deepLinkOf(mobileAppId: string, over: Partial<DeepLink> = {}): DeepLink {
  return { appRowId: 1, mobileAppId, deeplinkUrl: null, fallbackUrl: null, linkBehaviour: 'app', fallbackEnabled: false, ...over };
}
