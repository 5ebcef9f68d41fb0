// Invariant: a save request body, and a bulk save's envelope, is checked by one zod schema each.
// Type mismatches become VE001 naming the field path; constraint failures (empty, size, pattern)
// and an absent required member become SML002, and SML002 wins when both occur; a problem in
// `rules` is always VE001 naming its path. Response-only
// members (smartLink, createdVia, platform, …) are stripped.
import { z } from 'zod';
import type { AppError } from '../errors/app-error.ts';
import { constraintViolated, malformedBody, validationFailed } from '../errors/domain-errors.ts';
import { AppError as AppErrorClass } from '../errors/app-error.ts';
import { rulesRequestSchema, zonedInstant } from './link-rules.ts';
import { SHORT_CODE_PATTERN } from './short-code.ts';
import { hasControlCharacter, isDeepLinkUri, isHttpUrl, MAX_URL_LENGTH } from './url-rules.ts';

const URL_RULE = `must be an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`;
const NO_CONTROL_RULE = 'must not contain control characters (U+0000 to U+001F, U+007F); percent-encode them';
const DEEP_LINK_RULE = 'must be an absolute URI whose scheme neither runs code nor opens local resources (see README, Security)';
const noControl = (s: string) => !hasControlCharacter(s);

const nonBlank = (s: string) => s.trim().length > 0;
const optionalText = (max: number) => z.string().max(max, `size must be between 0 and ${max}`).nullish();
const optionalHttpUrl = z.string().refine(noControl, { message: NO_CONTROL_RULE, abort: true }).refine(isHttpUrl, URL_RULE).nullish();

/** A link password's length bounds (the dashboard's account passwords have their own). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const deepLinkRequestSchema = z.object({
  mobileAppId: z.string().nullish(),
  deeplinkUrl: z.string().refine(noControl, { message: NO_CONTROL_RULE, abort: true }).refine(isDeepLinkUri, DEEP_LINK_RULE).nullish(),
  fallbackUrl: optionalHttpUrl,
  linkBehaviour: z.enum(['app', 'webBrowser']).nullish(),
  fallbackEnabled: z.boolean().nullish(),
});

export const saveLinkRequestSchema = z.object({
  // meta(): what the refinements enforce, declared for the OpenAPI document (the checks stay the refinements').
  url: z
    .string({ error: 'must not be empty' })
    .refine(nonBlank, { message: 'must not be empty', abort: true })
    .refine(noControl, { message: NO_CONTROL_RULE, abort: true })
    .refine(isHttpUrl, URL_RULE)
    .meta({ minLength: 1, maxLength: MAX_URL_LENGTH, pattern: '^[hH][tT][tT][pP][sS]?:\\S+$' }),
  // Checked by the save (400 VE001 with details.reason FORMAT, RESERVED or TAKEN).
  shortCode: z.string().nullish().meta({ pattern: SHORT_CODE_PATTERN.source }),
  shortLinkName: optionalText(255),
  customDomain: z.string().nullish(),
  isActive: z.boolean().nullish(),
  cloakEnabled: z.boolean().nullish(),
  utmSource: optionalText(255),
  utmCampaign: optionalText(255),
  utmMedium: optionalText(255),
  enableCustomMetadata: z.boolean().nullish(),
  customMetadataTitle: optionalText(500),
  customMetadataDescription: optionalText(2000),
  customMetadataImageUrl: optionalHttpUrl,
  deepLinks: z.array(deepLinkRequestSchema).max(20, 'size must be between 0 and 20').nullish(),
  // Link rules (link-rules.ts). A past expiresAt is allowed (the link is expired at once).
  expiresAt: z
    .string()
    .refine((s) => zonedInstant(s) !== null, 'must be an ISO 8601 instant, e.g. 2026-12-01T00:00:00Z (without a zone: UTC)')
    .transform((s) => zonedInstant(s) as string)
    .nullish()
    .meta({ format: 'date-time', description: 'With its zone, or without one meaning UTC.' }),
  maxClicks: z.number().int().min(1, 'must be at least 1').max(2_147_483_647, 'must be at most 2147483647').nullish(),
  expiredUrl: optionalHttpUrl,
  // Write-only; "" (or null) removes the password.
  password: z
    .string()
    .refine((s) => s === '' || (s.length >= PASSWORD_MIN && s.length <= PASSWORD_MAX), `size must be between ${PASSWORD_MIN} and ${PASSWORD_MAX}`)
    .nullish()
    .meta({ writeOnly: true, description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters; "" or null removes it.` }),
  rules: rulesRequestSchema.nullish(),
});

export type SaveLinkRequest = z.infer<typeof saveLinkRequestSchema>;
export type DeepLinkRequest = z.infer<typeof deepLinkRequestSchema>;

/** Most records one bulk save carries. */
export const BULK_MAX = 30;

export const bulkSaveRequestSchema = z.object({
  data: z.array(z.unknown()).min(1, `size must be between 1 and ${BULK_MAX}`).max(BULK_MAX, `size must be between 1 and ${BULK_MAX}`),
});

export type BulkSaveRequest = z.infer<typeof bulkSaveRequestSchema>;

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/**
 * Classifies zod issues into the service's errors: SML002 (constraints, and a `required` top-level
 * member absent or null: "must not be empty") before VE001 (types, enums).
 */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], required: readonly string[]): AppError[] {
  const constraint: AppError[] = [];
  const other: AppError[] = [];
  for (const issue of issues) {
    const path = pathOf(issue.path);
    const input = (issue as { input?: unknown }).input;
    if (issue.path[0] === 'rules') {
      // Link rules: every problem is VE001 naming its path (rules[2].conditions[0].type).
      other.push(ruleError(issue, path, input));
    } else if (issue.code === 'invalid_type' && required.includes(path) && (input === undefined || input === null)) {
      constraint.push(constraintViolated(`${path}: must not be empty`));
    } else if (issue.code === 'invalid_type') {
      other.push(validationFailed(`${path}: must be of type ${issue.expected}`));
    } else if (issue.code === 'invalid_value') {
      other.push(new AppErrorClass('VE001', `Invalid value '${String(input)}' for ${path}; valid values: ${issue.values.join(', ')}`));
    } else {
      constraint.push(constraintViolated(`${path}: ${issue.message}`));
    }
  }
  return constraint.length > 0 ? constraint : other;
}

function ruleError(issue: z.core.$ZodIssue, path: string, input: unknown): AppError {
  if (issue.code === 'invalid_value')
    return new AppErrorClass('VE001', `Invalid value '${String(input)}' for ${path}; valid values: ${issue.values.join(', ')}`, { field: path });
  if (issue.code === 'invalid_type') return new AppErrorClass('VE001', `${path}: must be of type ${issue.expected}`, { field: path });
  return new AppErrorClass('VE001', `${path}: ${issue.message}`, { field: path });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: AppError[] };

const isObjectBody = (body: unknown): body is object => typeof body === 'object' && body !== null && !Array.isArray(body);

export function parseSaveLinkRequest(body: unknown): Parsed<SaveLinkRequest> {
  if (!isObjectBody(body)) return { ok: false, errors: [malformedBody()] };
  const result = saveLinkRequestSchema.safeParse(body, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: issuesToErrors(result.error.issues, ['url']) };
}

/** The bulk envelope; its records are checked one by one by the save. */
export function parseBulkSaveRequest(body: unknown): Parsed<BulkSaveRequest> {
  if (!isObjectBody(body)) return { ok: false, errors: [malformedBody()] };
  const result = bulkSaveRequestSchema.safeParse(body, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: issuesToErrors(result.error.issues, ['data']) };
}
