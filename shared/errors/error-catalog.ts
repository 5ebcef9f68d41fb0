// Invariant: every error code the service can answer with is listed here exactly once, with its
// HTTP status and its default message. Responses, the OpenAPI document and docs/errors.md are
// all derived from this table; a test fails when the docs miss a code.

export interface CatalogEntry {
  readonly status: number;
  readonly message: string;
  readonly meaning: string;
}

export const ERROR_CATALOG = {
  SML001: { status: 500, message: 'Internal server error', meaning: 'Unhandled internal failure. No stack trace is ever sent.' },
  SML002: { status: 400, message: 'must not be empty', meaning: 'Field-constraint failure (empty, size, pattern). Takes precedence over VE001.' },
  SML003: { status: 401, message: 'Invalid API key', meaning: 'Missing, unknown or revoked API key.' },
  SML004: { status: 409, message: 'DB Write exception', meaning: 'Unique-constraint conflict, e.g. a duplicate API key label.' },
  SML005: { status: 429, message: 'Rate limit exceeded', meaning: 'Token bucket of the organisation and scope is empty; see Retry-After.' },
  SML006: {
    status: 503,
    message: 'Service temporarily unavailable',
    meaning:
      'A dependency is down (ClickHouse for analytics reads and purges), or a purge cannot run yet (rollup backfill); details.retryAfterSeconds and Retry-After say when to retry. Answered within 1 s, never a hang.',
  },
  SML010: { status: 403, message: 'Access denied', meaning: 'The key lacks the scope for the action, or the organisation is suspended.' },
  VE001: {
    status: 400,
    message: 'Validation failed',
    meaning:
      'Other validation: shortCode FORMAT/RESERVED/TAKEN, inactive customDomain, analytics mode or range, filter values, malformed body, unknown enum value, DSL syntax.',
  },
  DL001: { status: 400, message: 'Deep link entry rejected', meaning: 'A deepLinks[] entry has a null, blank or unregistered mobileAppId.' },
  QE001: { status: 402, message: 'Plan quota exceeded', meaning: 'LINKS_PER_MONTH reached on FREE (nothing persisted).' },
  QE002: { status: 402, message: 'Click quota exhausted', meaning: 'FREE organisation out of monthly clicks; redirection paused (redirect path only).' },
  FE001: { status: 402, message: 'Feature not available on the current plan', meaning: 'METADATA_PREVIEW or ANALYTICS_EXPORT not in the plan.' },
  EN001: {
    status: 404,
    message: 'Entity not found',
    meaning: 'Unknown or deleted short code on the redirect path or another direct lookup (delete). The list endpoint never returns it.',
  },
  EN002: { status: 410, message: 'Link is no longer active', meaning: 'The link is archived (isActive=false).' },
  EN003: {
    status: 410,
    message: 'Link has expired',
    meaning: 'Redirect path: the link is past its expiresAt or its maxClicks, and has no expiredUrl (nothing recorded, no quota used).',
  },
  SML011: {
    status: 401,
    message: 'Password required',
    meaning: 'Redirect path: the link has a password and the request carries no valid cookie for it (JSON clients; browsers get the form).',
  },
  AU001: {
    status: 401,
    message: 'Sign-in required',
    meaning: 'Dashboard only: no session, or it ended (signed out, idle 12 h, 30 days old, password changed).',
  },
  AU002: {
    status: 401,
    message: 'Wrong e-mail or password',
    meaning: 'Dashboard only: the sign-in failed; the same answer whether or not the account exists.',
  },
  AU003: { status: 400, message: 'Wrong code', meaning: 'Dashboard only: a TOTP or recovery code that is wrong, expired or already used.' },
  AU004: {
    status: 410,
    message: 'This invitation has expired or was already used',
    meaning: 'Dashboard only: the invite link is unknown, used, revoked or older than 7 days.',
  },
  AU005: {
    status: 403,
    message: 'Two-factor authentication required',
    meaning: 'Dashboard only: the organisation requires 2FA and the user has not set it up yet.',
  },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** The codes the public API can answer with (the AU codes are the dashboard's sign-in answers). */
export const API_ERROR_CODES = ERROR_CODES.filter((c) => !c.startsWith('AU'));
