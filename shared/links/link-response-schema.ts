// Invariant: these zod schemas describe the Short URL payloads the API answers with. They feed
// the OpenAPI document, and the black-box tests parse real responses with them, so the document
// cannot drift from the behaviour.
import { z } from 'zod';

const changeSource = z.enum(['INTERNAL', 'EXTERNAL']);
const instant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);

export const deepLinkResponseSchema = z.strictObject({
  mobileAppId: z.string().regex(/^[A-Za-z0-9+/]{12}$/),
  deeplinkUrl: z.string().optional(),
  fallbackUrl: z.string().optional(),
  linkBehaviour: z.enum(['app', 'webBrowser']).optional(),
  fallbackEnabled: z.boolean(),
  platform: z.enum(['IOS', 'ANDROID', 'WEB']).optional(),
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
  effectivePreviewMetadata: z.strictObject({ title: z.string().optional(), description: z.string().optional(), imageUrl: z.string().optional() }).optional(),
  deepLinks: z.array(deepLinkResponseSchema),
  createdAt: instant,
  updatedAt: instant,
  createdBy: z.string(),
  updatedBy: z.string(),
  createdVia: changeSource,
  lastModifiedVia: changeSource,
});

export const bulkSaveResponseSchema = z.strictObject({
  successRecords: z.array(
    z.strictObject({
      shortCode: z.string(),
      url: z.string(),
      shortLinkName: z.string().optional(),
      smartLink: z.string(),
      isActive: z.boolean(),
      createdVia: changeSource,
      lastModifiedVia: changeSource,
    }),
  ),
  failureRecords: z.array(z.strictObject({ index: z.number().int(), record: z.unknown(), errors: z.array(z.unknown()) })),
  bulkSaveSummary: z.strictObject({ successCount: z.number().int(), failureCount: z.number().int() }),
});

export const pageSchema = z.strictObject({
  size: z.number().int(),
  number: z.number().int(),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
});

export const listResponseSchema = z.strictObject({ data: z.array(linkResponseSchema), page: pageSchema });

export const errorObjectSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const errorEnvelopeSchema = z.strictObject({ errors: z.array(errorObjectSchema).min(1) });
