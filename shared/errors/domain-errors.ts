// Invariant: one constructor per domain error, each producing the exact code, message text and
// details shape the spec fixes. Callers never spell a code or a message themselves.
import { AppError } from './app-error.ts';

export type ShortCodeReason = 'FORMAT' | 'RESERVED' | 'TAKEN';

const SHORT_CODE_MESSAGES: Record<ShortCodeReason, string> = {
  FORMAT: 'Invalid short code format. Must be 7-50 characters, alphanumeric, underscore or hyphen only.',
  RESERVED: 'Short code is reserved by the service.',
  TAKEN: 'Short code is already taken.',
};

export const shortCodeRejected = (reason: ShortCodeReason): AppError => new AppError('VE001', SHORT_CODE_MESSAGES[reason], { field: 'shortCode', reason });

export const malformedBody = (): AppError => new AppError('VE001', 'Request body is missing or malformed');

export const validationFailed = (message: string): AppError => new AppError('VE001', message);

/** VE001 about one field of a form or body: `<field>: <message>`, details.field naming it (the form shows it there). */
export const fieldProblem = (field: string, message: string): AppError => new AppError('VE001', `${field}: ${message}`, { field });

export const constraintViolated = (message: string): AppError => new AppError('SML002', message);

export const customDomainInactive = (domain: string): AppError =>
  new AppError('VE001', `customDomain '${domain}' is not an active domain of the organisation`, { field: 'customDomain' });

export const deepLinkRejected = (mobileAppId: string | null): AppError =>
  new AppError('DL001', `Deep link entry rejected: mobileAppId '${mobileAppId ?? 'null'}' is not recognised for this organisation`, {
    kind: 'deep_link_validation',
    mobileAppId,
  });

export const invalidApiKey = (): AppError => new AppError('SML003', 'Invalid API key');

export const accessDenied = (): AppError => new AppError('SML010', 'Access denied');

export const dependencyUnavailable = (retryAfterSeconds = 1): AppError =>
  new AppError(
    'SML006',
    'Service temporarily unavailable',
    { kind: 'dependency_unavailable', retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );

export const duplicateLabel = (): AppError => new AppError('SML004', 'DB Write exception');

/** The API's buckets, one per organisation and scope. */
export type ApiRateLimitScope = 'crud' | 'analytics_events' | 'analytics_export';
/** …the redirector's QR drawing bucket, per client address, and wrong link passwords, per address and link; the dashboard's sign-in and per-user write limits. */
export type RateLimitScope = ApiRateLimitScope | 'qr_render' | 'sign_in' | 'dashboard_writes' | 'link_password';

export const rateLimited = (scope: RateLimitScope, limitPerMin: number, retryAfterSeconds: number): AppError =>
  new AppError(
    'SML005',
    'Rate limit exceeded',
    { kind: 'rate_limit_exceeded', scope, limitPerMin, retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );

export const linkNotFound = (shortCode: string): AppError => new AppError('EN001', `Short URL with shortCode '${shortCode}' not found`);

export const linkArchived = (): AppError => new AppError('EN002', 'Link is no longer active');

export const linkExpired = (): AppError => new AppError('EN003', 'Link has expired');

export const passwordRequired = (): AppError => new AppError('SML011', 'Password required');
