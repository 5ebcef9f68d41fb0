// Invariant: the Short URL object a client sees is the wire form of a Link, built only by
// toLinkResponse: server-controlled members (smartLink, platform, storeUrl,
// effectivePreviewMetadata) are resolved at read time, timestamps keep their microseconds, and
// null members are omitted. These zod schemas describe every Short URL payload; they feed the
// OpenAPI document and the response types, and the black-box tests parse real responses with
// them, so the document cannot drift from the behaviour.
import { z } from 'zod';
import type { MobileApp } from '../apps/mobile-app-repository.ts';
import { PLATFORMS } from '../apps/platform.ts';
import { previewMetadataSchema } from '../previews/effective-preview-metadata.ts';
import { formatPgInstant } from '../time/instant.ts';
import { CHANGE_SOURCES, LINK_BEHAVIOURS, type Link } from './link.ts';
import { RULE_CONDITION_TYPES } from './model/link-rules-model.ts';
import { smartLinkOf } from './smart-link.ts';

const changeSource = z.enum(CHANGE_SOURCES);
const instant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);

export const deepLinkResponseSchema = z.strictObject({
  mobileAppId: z.string().regex(/^[A-Za-z0-9+/]{12}$/),
  deeplinkUrl: z.string().optional(),
  fallbackUrl: z.string().optional(),
  linkBehaviour: z.enum(LINK_BEHAVIOURS).optional(),
  fallbackEnabled: z.boolean(),
  platform: z.enum(PLATFORMS).optional(),
  storeUrl: z.string().optional(),
  appId: z.number().int().optional(),
});

export const linkResponseSchema = z.strictObject({
  url: z.string(),
  shortCode: z.string(),
  shortLinkName: z.string().optional(),
  smartLink: z.string(),
  isActive: z.boolean(),
  cloakEnabled: z.boolean(),
  utmSource: z.string().optional(),
  utmCampaign: z.string().optional(),
  utmMedium: z.string().optional(),
  enableCustomMetadata: z.boolean(),
  customMetadataTitle: z.string().optional(),
  customMetadataDescription: z.string().optional(),
  customMetadataImageUrl: z.string().optional(),
  effectivePreviewMetadata: previewMetadataSchema.optional(),
  deepLinks: z.array(deepLinkResponseSchema),
  expiresAt: instant.optional(),
  maxClicks: z.number().int().min(1).optional(),
  expiredUrl: z.string().optional(),
  passwordProtected: z.literal(true).optional().meta({ description: 'Present (true) when the link has a password; the password itself is never returned.' }),
  rules: z
    .array(z.strictObject({ conditions: z.array(z.strictObject({ type: z.enum(RULE_CONDITION_TYPES), value: z.string() })), url: z.string() }))
    .optional()
    .meta({ description: 'Targeting rules in order; absent when the link has none.' }),
  createdAt: instant,
  updatedAt: instant,
  createdBy: z.string(),
  updatedBy: z.string(),
  createdVia: changeSource,
  lastModifiedVia: changeSource,
});

export const errorObjectSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const bulkSuccessRecordSchema = z.strictObject({
  shortCode: z.string(),
  url: z.string(),
  shortLinkName: z.string().optional(),
  smartLink: z.string(),
  isActive: z.boolean(),
  createdVia: changeSource,
  lastModifiedVia: changeSource,
});

export const bulkSaveResponseSchema = z.strictObject({
  successRecords: z.array(bulkSuccessRecordSchema),
  failureRecords: z.array(
    z.strictObject({
      index: z.number().int().min(0).meta({ description: "Position of the record in the request's data array." }),
      record: z.unknown().meta({ description: 'The record exactly as it was sent.' }),
      errors: z.array(errorObjectSchema).min(1),
    }),
  ),
  bulkSaveSummary: z.strictObject({ successCount: z.number().int(), failureCount: z.number().int() }),
});

export const pageSchema = z.strictObject({
  size: z.number().int(),
  number: z.number().int(),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
});

export const listResponseSchema = z.strictObject({ data: z.array(linkResponseSchema), page: pageSchema });

export const errorEnvelopeSchema = z.strictObject({ errors: z.array(errorObjectSchema).min(1) });

export type LinkResponse = z.infer<typeof linkResponseSchema>;
export type DeepLinkResponse = z.infer<typeof deepLinkResponseSchema>;
export type BulkSaveResponse = z.infer<typeof bulkSaveResponseSchema>;
export type BulkSuccessRecord = z.infer<typeof bulkSuccessRecordSchema>;
export type BulkFailureRecord = BulkSaveResponse['failureRecords'][number];
export type ListResponse = z.infer<typeof listResponseSchema>;

export interface ResponseOptions {
  shortLinkBase: string;
  /** Save responses carry deepLinks[].appId; list responses do not. */
  includeAppId: boolean;
}

/** Drops members whose value is null or undefined (one level; nested objects are built clean). */
function omitNulls<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out as T;
}

/** The Short URL object of a link, with the organisation's registered apps of its deep links. */
export function toLinkResponse(link: Link, apps: ReadonlyMap<string, MobileApp>, opts: ResponseOptions): LinkResponse {
  const preview = link.effectivePreviewMetadata;
  const deepLinks = link.deepLinks.map((d) => {
    const app = apps.get(d.mobileAppId);
    return omitNulls<DeepLinkResponse>({
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
  return omitNulls<LinkResponse>({
    url: link.url,
    shortCode: link.shortCode,
    shortLinkName: link.shortLinkName ?? undefined,
    smartLink: smartLinkOf(link.domainHost, opts.shortLinkBase, link.shortCode),
    isActive: link.isActive,
    cloakEnabled: link.cloakEnabled,
    utmSource: link.utmSource ?? undefined,
    utmCampaign: link.utmCampaign ?? undefined,
    utmMedium: link.utmMedium ?? undefined,
    enableCustomMetadata: link.enableCustomMetadata,
    customMetadataTitle: link.customMetadataTitle ?? undefined,
    customMetadataDescription: link.customMetadataDescription ?? undefined,
    customMetadataImageUrl: link.customMetadataImageUrl ?? undefined,
    effectivePreviewMetadata: Object.keys(preview).length > 0 ? preview : undefined,
    deepLinks,
    expiresAt: link.expiresAt === null ? undefined : formatPgInstant(link.expiresAt),
    maxClicks: link.maxClicks ?? undefined,
    expiredUrl: link.expiredUrl ?? undefined,
    passwordProtected: link.passwordHash === null ? undefined : true,
    rules:
      link.rules.length === 0 ? undefined : link.rules.map((r) => ({ conditions: r.conditions.map((c) => ({ type: c.type, value: c.value })), url: r.url })),
    createdAt: formatPgInstant(link.createdAt),
    updatedAt: formatPgInstant(link.updatedAt),
    createdBy: link.createdBy,
    updatedBy: link.updatedBy,
    createdVia: link.createdVia,
    lastModifiedVia: link.lastModifiedVia,
  });
}

/** A bulk save's success record: the saved Short URL object cut to the members the spec lists. */
export function toBulkSuccessRecord(view: LinkResponse): BulkSuccessRecord {
  return omitNulls<BulkSuccessRecord>({
    shortCode: view.shortCode,
    url: view.url,
    shortLinkName: view.shortLinkName,
    smartLink: view.smartLink,
    isActive: view.isActive,
    createdVia: view.createdVia,
    lastModifiedVia: view.lastModifiedVia,
  });
}
