// Invariant: the one statement of what a redirect decision can be. Each outcome (the redirector's
// `outcome` label, decideRedirect's answer) names the resolve kind it is reported as (POST
// /resolve, the dashboard's simulator); each resolve kind carries the dashboard's text for it.
// RESOLVE_KINDS (the resolve answer's enum, in this order) and KIND_OF derive from these two
// tables. Browser-safe: no imports.

/** Resolve kinds with the dashboard's text of each, in the resolve answer's enum order. */
export const RESOLVE_KIND_TEXT = {
  redirect: 'Redirect to the destination',
  rule: 'Redirect by a rule',
  cloak: 'Shown framed (cloaking)',
  deep_link: 'Opens the app (deep link)',
  preview: 'Preview page for a crawler',
  password_required: 'Asked for the password',
  expired: 'Expired',
  archived: 'Archived (410)',
  suspended: 'Organisation suspended (403)',
  quota_exhausted: 'Click quota exhausted (402)',
  not_found: 'Not found (404)',
} as const;
export type ResolveKind = keyof typeof RESOLVE_KIND_TEXT;
export const RESOLVE_KINDS = Object.keys(RESOLVE_KIND_TEXT) as [ResolveKind, ...ResolveKind[]];

/** What a decision was, as the redirector counts it, with the resolve kind it is reported as. */
export const OUTCOME_KINDS = {
  redirect: 'redirect',
  rule: 'rule',
  cloak: 'cloak',
  app_page: 'deep_link',
  app_fallback: 'deep_link',
  preview: 'preview',
  qr: 'redirect',
  not_found: 'not_found',
  archived: 'archived',
  suspended: 'suspended',
  quota_exhausted: 'quota_exhausted',
  expired: 'expired',
  password_required: 'password_required',
} as const satisfies Record<string, ResolveKind>;
export type Outcome = keyof typeof OUTCOME_KINDS;
/** redirector_requests_total's decision outcomes, in table order. */
export const OUTCOMES = Object.keys(OUTCOME_KINDS) as Outcome[];

/** The resolve kind an outcome is reported as. */
export const KIND_OF: Readonly<Record<Outcome, ResolveKind>> = OUTCOME_KINDS;
