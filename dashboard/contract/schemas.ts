// Invariant: the request and response shapes of every dashboard route (named as in routes.ts).
// Requests are parsed with these schemas on the server (a field's problem becomes VE001 naming
// the field); responses are typed by them on both sides. Never a password hash, a TOTP secret
// after set-up, a session id or an API key's hash in a response.
import { z } from 'zod';
import { ROLES } from '../../shared/accounts/roles.ts';
import { PLATFORMS } from '../../shared/apps/platform.ts';
import { SCOPES } from '../../shared/keys/model/scopes.ts';
import { linkResponseSchema, listResponseSchema } from '../../shared/links/link-response.ts';
import { saveLinkRequestSchema } from '../../shared/links/link-request.ts';
import { resolveRequestSchema, resolveResponseSchema } from '../../shared/redirects/resolve-link.ts';
import { WEBHOOK_EVENT_TYPES } from '../../shared/webhooks/webhook-events.ts';
import type { RouteName } from './routes.ts';
import { aggregateResponseSchema, visitorsResponseSchema } from '../../shared/analytics/model/aggregate-response.ts';
import { GEO_PRECISIONS } from '../../shared/analytics/model/tracking.ts';
import { DIMENSION_NAMES } from '../../shared/analytics/model/dimensions.ts';

const role = z.enum(ROLES);
const email = z.string().max(254);
const password = z.string().max(256);
const ok = z.object({ ok: z.literal(true) });

export const orgSummary = z.object({ id: z.string(), name: z.string(), role });

export const sessionView = z.object({
  stage: z.enum(['second_factor', 'full']),
  csrfToken: z.string(),
  user: z.object({ email: z.string(), twoFactor: z.boolean() }),
  org: z
    .object({
      id: z.string(),
      name: z.string(),
      plan: z.string(),
      timezone: z.string(),
      role,
      require2fa: z.boolean(),
      permissions: z.array(z.string()),
    })
    .nullable(),
  orgs: z.array(orgSummary),
  signUp: z.boolean(),
});

const appView = z.object({ mobileAppId: z.string(), name: z.string(), platform: z.enum(PLATFORMS), storeUrl: z.string(), active: z.boolean() });
const keyView = z.object({
  id: z.string(),
  label: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  status: z.enum(['active', 'revoked']),
});
const webhookView = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  /** The secret's last 4 characters; the whole secret only from add, rotate and reveal. */
  secretLast4: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
});
const webhookAttemptView = z.object({
  messageId: z.string(),
  type: z.string(),
  attemptedAt: z.string(),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  responseBody: z.string(),
  replay: z.boolean(),
  messageStatus: z.string(),
});
const domainView = z.object({
  id: z.string(),
  host: z.string(),
  status: z.enum(['PENDING', 'ACTIVE', 'FAILED']),
  isPrimary: z.boolean(),
  /** The TXT record that verifies it (while it is not ACTIVE, or for its records). */
  record: z.object({ name: z.string(), value: z.string() }).nullable(),
  createdAt: z.string(),
  lastCheckedAt: z.string().nullable(),
  nextCheckAt: z.string().nullable(),
  verifiedAt: z.string().nullable(),
  lastCheckError: z.string().nullable(),
  pointsAtDefault: z.boolean().nullable(),
});
const usageLine = z.object({ used: z.number(), limit: z.number(), overage: z.number(), overageEur: z.number() });
const tracking = z.object({ referrer: z.boolean(), userAgent: z.boolean(), geo: z.enum(GEO_PRECISIONS), dnt: z.boolean() });
const orgView = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.string(),
  timezone: z.string(),
  require2fa: z.boolean(),
  tracking,
  /** The organisation's own raw event retention in days; null follows the service's. */
  retentionDays: z.number().nullable(),
  /** The service's retention (ANALYTICS_RETENTION_DAYS); null keeps events for good. */
  serviceRetentionDays: z.number().nullable(),
});

export interface RouteSchema {
  /** Parsed by the route before its handler runs. */
  body?: z.ZodType;
  /** The body's type only: the handler passes it on to code that checks it itself. */
  request?: z.ZodType;
  response: z.ZodType;
}

export const SCHEMAS = {
  session: { response: sessionView },
  signIn: { body: z.object({ email, password }), response: sessionView },
  signUp: { body: z.object({ email, password, organisation: z.string().max(200) }), response: sessionView },
  secondFactor: { body: z.object({ code: z.string().max(40) }), response: sessionView },
  signOut: { response: ok },
  signOutEverywhere: { response: ok },
  switchOrg: { body: z.object({ orgId: z.string().max(40) }), response: sessionView },
  inviteLookup: {
    body: z.object({ token: z.string().max(200) }),
    response: z.object({ orgName: z.string(), email: z.string().nullable(), role, existingUser: z.boolean() }),
  },
  inviteAccept: { body: z.object({ token: z.string().max(200), email: email.optional(), password }), response: sessionView },
  changePassword: { body: z.object({ currentPassword: password, newPassword: password }), response: sessionView },
  twoFactorStart: { body: z.object({ password }), response: z.object({ secret: z.string(), uri: z.string(), qrSvg: z.string() }) },
  twoFactorConfirm: { body: z.object({ code: z.string().max(20) }), response: z.object({ recoveryCodes: z.array(z.string()), session: sessionView }) },
  twoFactorDisable: { body: z.object({ password }), response: sessionView },
  accountSessions: {
    response: z.object({
      sessions: z.array(z.object({ id: z.string(), createdAt: z.string(), lastSeenAt: z.string(), userAgent: z.string().nullable(), current: z.boolean() })),
    }),
  },
  endSession: { response: ok },
  // The list endpoint's query (the API's DSL), page and size arrive as the query string.
  links: { response: listResponseSchema },
  link: { response: linkResponseSchema },
  // The API's save request, checked by the same save path (not parsed here, so its errors are the API's).
  saveLink: { response: linkResponseSchema, request: saveLinkRequestSchema },
  // The API's resolve (the simulator), checked by resolveLink itself.
  resolveLink: { response: resolveResponseSchema, request: resolveRequestSchema },
  /** The link as it was; with purgeAnalytics its events are purged too. */
  deleteLink: { body: z.object({ purgeAnalytics: z.boolean() }), response: linkResponseSchema },
  bulkActive: {
    body: z.object({ shortCodes: z.array(z.string().max(100)).min(1).max(100), isActive: z.boolean() }),
    response: z.object({
      updated: z.array(z.string()),
      failed: z.array(z.object({ shortCode: z.string(), message: z.string() })),
    }),
  },
  apps: { response: z.object({ apps: z.array(appView) }) },
  registerApp: { body: z.object({ name: z.string().max(200), platform: z.enum(PLATFORMS), storeUrl: z.string().max(2048) }), response: appView },
  updateApp: { body: z.object({ storeUrl: z.string().max(2048) }), response: appView },
  removeApp: { response: appView },
  keys: { response: z.object({ keys: z.array(keyView) }) },
  createKey: {
    body: z.object({ label: z.string().max(200), scopes: z.array(z.enum(SCOPES)).max(SCOPES.length) }),
    response: z.object({ key: z.string(), view: keyView }),
  },
  revokeKey: { response: keyView },
  members: {
    response: z.object({
      members: z.array(z.object({ userId: z.string(), email: z.string(), role, twoFactor: z.boolean(), since: z.string(), you: z.boolean() })),
      invites: z.array(z.object({ id: z.string(), email: z.string().nullable(), role, invitedBy: z.string(), expiresAt: z.string() })),
      seats: z.object({ used: z.number(), limit: z.number() }),
    }),
  },
  invite: { body: z.object({ email, role }), response: z.object({ inviteUrl: z.string(), email: z.string(), role, expiresAt: z.string() }) },
  revokeInvite: { response: ok },
  changeRole: { body: z.object({ role }), response: ok },
  removeMember: { response: ok },
  usage: {
    response: z.object({
      plan: z.string(),
      periodStart: z.string(),
      links: usageLine,
      clicks: usageLine,
      totalOverageEur: z.number(),
      seats: z.object({ used: z.number(), limit: z.number() }),
      domains: z.object({ used: z.number(), limit: z.number() }),
    }),
  },
  analytics: {
    response: z.object({
      series: aggregateResponseSchema,
      /** The same series over the period of the same length just before. */
      previous: aggregateResponseSchema,
      /** The series' distinct visitors (metric=visitors). */
      visitors: visitorsResponseSchema,
      /** Every dimension's top 10 in the range, with the page's filters. */
      top: z.record(z.enum(DIMENSION_NAMES), aggregateResponseSchema),
      /** The plan has ANALYTICS_EXPORT (the export download answers 402 FE001 otherwise). */
      exportAllowed: z.boolean(),
    }),
  },
  org: { response: orgView },
  updateOrg: { body: z.object({ name: z.string().max(200), timezone: z.string().max(100), require2fa: z.boolean() }), response: orgView },
  /** retentionDays: '' follows the service's retention; otherwise whole days (checked by the handler, the message next to the field). */
  updatePrivacy: { body: z.object({ tracking, retentionDays: z.string().max(20) }), response: orgView },
  domains: { response: z.object({ domains: z.array(domainView), defaultHost: z.string() }) },
  addDomain: { body: z.object({ host: z.string().max(300) }), response: domainView },
  checkDomain: { response: domainView },
  removeDomain: { response: ok },
  webhooks: { response: z.object({ endpoints: z.array(webhookView), eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)) }) },
  addWebhook: {
    body: z.object({ url: z.string().max(2048), eventTypes: z.array(z.string().max(40)).max(20) }),
    response: z.object({ endpoint: webhookView, secret: z.string() }),
  },
  updateWebhook: { body: z.object({ url: z.string().max(2048), eventTypes: z.array(z.string().max(40)).max(20) }), response: webhookView },
  webhookEnabled: { body: z.object({ enabled: z.boolean() }), response: webhookView },
  replayWebhookRange: { body: z.object({ from: z.string().max(64), to: z.string().max(64) }), response: z.object({ replayed: z.array(z.string()) }) },
  rotateWebhook: { response: z.object({ endpoint: webhookView, secret: z.string() }) },
  revealWebhookSecret: { response: z.object({ secret: z.string() }) },
  testWebhook: { response: z.object({ webhookId: z.string() }) },
  removeWebhook: { response: ok },
  webhookAttempts: { response: z.object({ attempts: z.array(webhookAttemptView) }) },
  replayWebhookMessage: { response: z.object({ replayed: z.array(z.string()) }) },
} satisfies Record<RouteName, RouteSchema>;

export type Schemas = typeof SCHEMAS;
export type BodyOf<K extends RouteName> = Schemas[K] extends { body: z.ZodType }
  ? z.input<Schemas[K]['body']>
  : Schemas[K] extends { request: z.ZodType }
    ? z.input<Schemas[K]['request']>
    : undefined;
export type ResponseOf<K extends RouteName> = z.output<Schemas[K]['response']>;
export type SessionView = z.output<typeof sessionView>;
