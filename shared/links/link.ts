// Invariant: Link is the one model of a short link, for every process and every cache tier: its
// stored members, the host of its custom domain (while that domain is active) and the fetched
// preview of its destination as joined when read, and the values derived from them (the
// destination with the UTM tags applied, its web-safe form, effectivePreviewMetadata, the expiry
// instant, the compiled rules), computed once per read by `buildLink`, never per request. Its types are inferred from these schemas; the
// API's request and response shapes (link-request.ts, link-response.ts) are the wire forms of it.
import { z } from 'zod';
import { effectivePreviewMetadata, previewMetadataSchema } from '../previews/effective-preview-metadata.ts';
import { formatPgInstant } from '../time/instant.ts';
import { CompiledRules, compileRules, ruleSpecSchema } from './link-rules.ts';
import { safeWebUrl } from './safe-url.ts';
import { applyUtm } from './utm.ts';

export const LINK_BEHAVIOURS = ['app', 'webBrowser'] as const;
export type LinkBehaviour = (typeof LINK_BEHAVIOURS)[number];

/** The spec's enum `ChangeSource`: createdVia / lastModifiedVia. */
export const CHANGE_SOURCES = ['INTERNAL', 'EXTERNAL'] as const;
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

/** One deepLinks[] entry as stored (the app is resolved to its row when saved). */
export const deepLinkSchema = z.object({
  appRowId: z.number().int(),
  mobileAppId: z.string().min(1),
  deeplinkUrl: z.string().nullable(),
  fallbackUrl: z.string().nullable(),
  linkBehaviour: z.enum(LINK_BEHAVIOURS).nullable(),
  fallbackEnabled: z.boolean(),
});
export type DeepLink = z.infer<typeof deepLinkSchema>;

/** The destination page's fetched preview (destination_previews), when one was stored. */
export const destinationPreviewSchema = z.object({
  title: z.string().nullable(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  frameRefused: z.boolean(),
});
export type DestinationPreview = z.infer<typeof destinationPreviewSchema>;

/** What Postgres holds for a link, with its domain and preview joined. */
export const storedLinkSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  shortCode: z.string(),
  url: z.string(),
  shortLinkName: z.string().nullable(),
  /** The stored domain reference (kept on update even after the domain was removed). */
  domainId: z.number().int().nullable(),
  /** Host of that domain while it is active, else null. */
  domainHost: z.string().nullable(),
  isActive: z.boolean(),
  cloakEnabled: z.boolean(),
  utmSource: z.string().nullable(),
  utmMedium: z.string().nullable(),
  utmCampaign: z.string().nullable(),
  enableCustomMetadata: z.boolean(),
  customMetadataTitle: z.string().nullable(),
  customMetadataDescription: z.string().nullable(),
  customMetadataImageUrl: z.string().nullable(),
  deepLinks: z.array(deepLinkSchema),
  /** Postgres text of timestamptz; past it the link is expired. */
  expiresAt: z.string().nullable(),
  /** Past this many clicks the link is expired. */
  maxClicks: z.number().int().nullable(),
  /** Where an expired link sends its visitors (else 410 EN003). */
  expiredUrl: z.string().nullable(),
  /** argon2id hash of the link's password (never answered: responses say passwordProtected). */
  passwordHash: z.string().nullable(),
  /** Targeting rules, in order (link-rules.ts). */
  rules: z.array(ruleSpecSchema),
  preview: destinationPreviewSchema.nullable(),
  /** Postgres text of timestamptz (microseconds kept). */
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.string(),
  updatedBy: z.string(),
  createdVia: z.enum(CHANGE_SOURCES),
  lastModifiedVia: z.enum(CHANGE_SOURCES),
});
export type StoredLink = z.infer<typeof storedLinkSchema>;

export const linkSchema = storedLinkSchema.extend({
  /** The destination with the link's UTM tags applied. */
  destination: z.string(),
  /** The destination as an absolute http(s) URL safe for href/src, or null (see safe-url.ts). */
  safeDestination: z.string().nullable(),
  effectivePreviewMetadata: previewMetadataSchema,
  /** expiresAt in milliseconds since the epoch. */
  expiresAtMs: z.number().nullable(),
  /** expiredUrl as a safe absolute http(s) URL, or null. */
  safeExpiredUrl: z.string().nullable(),
  /** The rules, compiled (never serialised: compiled again when revived). */
  compiledRules: z.instanceof(CompiledRules),
});
export type Link = z.infer<typeof linkSchema>;

/** The values a Link derives from its stored members. */
type Derived = Pick<Link, 'destination' | 'safeDestination' | 'effectivePreviewMetadata' | 'expiresAtMs' | 'safeExpiredUrl' | 'compiledRules'>;

const withUtmOf = (s: StoredLink) => (url: string) => applyUtm(url, s);

/**
 * The Link of stored members, derived values added. Built field by field, never by spreading:
 * V8 gives every object cloned by spread its own map, which turns each property read on the
 * redirect path into a megamorphic lookup.
 */
export function buildLink(s: StoredLink): Link {
  const destination = applyUtm(s.url, s);
  return assemble(s, {
    destination,
    safeDestination: safeWebUrl(destination),
    effectivePreviewMetadata: effectivePreviewMetadata(s, s.preview),
    expiresAtMs: s.expiresAt === null ? null : Date.parse(formatPgInstant(s.expiresAt)),
    safeExpiredUrl: s.expiredUrl === null ? null : safeWebUrl(s.expiredUrl),
    compiledRules: compileRules(s.rules, withUtmOf(s)),
  });
}

/**
 * A Link read back from a cache tier this code wrote (the JSON of a built Link), with its derived
 * values as they were computed when it was built (a cache epoch never outlives the code that
 * wrote it): no URL is parsed again. Only an entry without them is built again.
 */
export function reviveLink(json: Link): Link {
  if (
    typeof json.destination !== 'string' ||
    json.safeDestination === undefined ||
    json.effectivePreviewMetadata == null ||
    json.expiresAtMs === undefined ||
    json.safeExpiredUrl === undefined ||
    !Array.isArray(json.rules)
  ) {
    return buildLink(json);
  }
  return assemble(json, {
    destination: json.destination,
    safeDestination: json.safeDestination,
    effectivePreviewMetadata: json.effectivePreviewMetadata,
    expiresAtMs: json.expiresAtMs,
    safeExpiredUrl: json.safeExpiredUrl,
    compiledRules: compileRules(json.rules, withUtmOf(json)),
  });
}

/** One shape for every Link, whichever way it was made: stored members, then derived ones, in this order. */
function assemble(s: StoredLink, d: Derived): Link {
  return {
    id: s.id,
    orgId: s.orgId,
    shortCode: s.shortCode,
    url: s.url,
    shortLinkName: s.shortLinkName,
    domainId: s.domainId,
    domainHost: s.domainHost,
    isActive: s.isActive,
    cloakEnabled: s.cloakEnabled,
    utmSource: s.utmSource,
    utmMedium: s.utmMedium,
    utmCampaign: s.utmCampaign,
    enableCustomMetadata: s.enableCustomMetadata,
    customMetadataTitle: s.customMetadataTitle,
    customMetadataDescription: s.customMetadataDescription,
    customMetadataImageUrl: s.customMetadataImageUrl,
    deepLinks: s.deepLinks,
    expiresAt: s.expiresAt,
    maxClicks: s.maxClicks,
    expiredUrl: s.expiredUrl,
    passwordHash: s.passwordHash,
    rules: s.rules,
    preview: s.preview,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    createdBy: s.createdBy,
    updatedBy: s.updatedBy,
    createdVia: s.createdVia,
    lastModifiedVia: s.lastModifiedVia,
    destination: d.destination,
    safeDestination: d.safeDestination,
    effectivePreviewMetadata: d.effectivePreviewMetadata,
    expiresAtMs: d.expiresAtMs,
    safeExpiredUrl: d.safeExpiredUrl,
    compiledRules: d.compiledRules,
  };
}

/** Deep-link entries of a stored jsonb value; entries that are not well-formed are skipped. */
export function parseDeepLinks(value: unknown): DeepLink[] {
  if (!Array.isArray(value)) return [];
  const out: DeepLink[] = [];
  for (const item of value as unknown[]) {
    const parsed = deepLinkSchema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** Rough in-memory footprint of a link, for byte-bounded caches. */
export function linkSize(l: Link): number {
  let n = 600 + 2 * (l.url.length + l.destination.length + l.shortCode.length + (l.shortLinkName?.length ?? 0));
  for (const d of l.deepLinks) n += 200 + 2 * ((d.deeplinkUrl?.length ?? 0) + (d.fallbackUrl?.length ?? 0));
  for (const r of l.rules) n += 400 + 4 * r.url.length + 200 * r.conditions.length;
  n += 2 * ((l.expiredUrl?.length ?? 0) + (l.passwordHash?.length ?? 0));
  for (const v of Object.values(l.effectivePreviewMetadata)) n += 2 * v.length;
  return n;
}
