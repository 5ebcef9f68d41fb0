// Invariant: a save request body is checked by this one zod schema. Type mismatches become VE001
// naming the field path; constraint failures (empty, size, pattern) become SML002, and SML002 wins
// when both occur. Response-only members (smartLink, createdVia, platform, …) are stripped.
import { z } from 'zod';
import type { AppError } from '../errors/app-error.ts';
import { constraintViolated, validationFailed } from '../errors/domain-errors.ts';
import { AppError as AppErrorClass } from '../errors/app-error.ts';
import { SHORT_CODE_PATTERN } from './short-code.ts';
import { hasControlCharacter, isDeepLinkUri, isHttpUrl, MAX_URL_LENGTH } from './url-rules.ts';

const URL_RULE = `must be an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`;
const NO_CONTROL_RULE = 'must not contain control characters (U+0000 to U+001F, U+007F); percent-encode them';
const DEEP_LINK_RULE = 'must be an absolute URI whose scheme neither runs code nor opens local resources (see README, Security)';
const noControl = (s: string) => !hasControlCharacter(s);

const nonBlank = (s: string) => s.trim().length > 0;
const optionalText = (max: number) => z.string().max(max, `size must be between 0 and ${max}`).nullish();
const optionalHttpUrl = z.string().refine(noControl, { message: NO_CONTROL_RULE, abort: true }).refine(isHttpUrl, URL_RULE).nullish();

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
});

export type SaveLinkRequest = z.infer<typeof saveLinkRequestSchema>;
export type DeepLinkRequest = z.infer<typeof deepLinkRequestSchema>;

function pathOf(prefix: string, path: readonly PropertyKey[]): string {
  const parts = [prefix, ...path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))].filter(Boolean);
  return parts.join('.').replace(/\.\[/g, '[');
}

/** Classifies zod issues into the service's errors: SML002 (constraints) before VE001 (types, enums). */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): AppError[] {
  const constraint: AppError[] = [];
  const other: AppError[] = [];
  for (const issue of issues) {
    const path = pathOf(prefix, issue.path);
    const input = (issue as { input?: unknown }).input;
    if (issue.code === 'invalid_type' && path.endsWith('url') && !path.includes('[') && (input === undefined || input === null)) {
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

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: AppError[] };

export function parseSaveLinkRequest(body: unknown, prefix = ''): Parsed<SaveLinkRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [validationFailed('Request body is missing or malformed')] };
  }
  const result = saveLinkRequestSchema.safeParse(body, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: issuesToErrors(result.error.issues, prefix) };
}
