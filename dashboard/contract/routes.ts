// Invariant: every JSON route of the dashboard is named once here (method and path, no zod, so
// the browser bundle can import it); its request and response schemas are in schemas.ts under
// the same name, and both the server's handlers and the SPA's client take their types from those
// schemas. Paths take `:name` parameters.
export const ROUTES = {
  session: ['GET', '/api/session'],
  signIn: ['POST', '/api/session'],
  signUp: ['POST', '/api/sign-up'],
  secondFactor: ['POST', '/api/session/second-factor'],
  signOut: ['POST', '/api/session/sign-out'],
  signOutEverywhere: ['POST', '/api/session/sign-out-everywhere'],
  switchOrg: ['POST', '/api/session/org'],
  inviteLookup: ['POST', '/api/invite/lookup'],
  inviteAccept: ['POST', '/api/invite/accept'],
  changePassword: ['POST', '/api/account/password'],
  twoFactorStart: ['POST', '/api/account/2fa/start'],
  twoFactorConfirm: ['POST', '/api/account/2fa/confirm'],
  twoFactorDisable: ['POST', '/api/account/2fa/disable'],
  accountSessions: ['GET', '/api/account/sessions'],
  endSession: ['POST', '/api/account/sessions/:id/end'],
  links: ['GET', '/api/links'],
  link: ['GET', '/api/links/:code'],
  saveLink: ['POST', '/api/links'],
  resolveLink: ['POST', '/api/links/resolve'],
  bulkActive: ['POST', '/api/links/bulk-active'],
  deleteLink: ['POST', '/api/links/:code/delete'],
  apps: ['GET', '/api/apps'],
  registerApp: ['POST', '/api/apps'],
  updateApp: ['POST', '/api/apps/:id'],
  removeApp: ['POST', '/api/apps/:id/remove'],
  domains: ['GET', '/api/domains'],
  addDomain: ['POST', '/api/domains'],
  checkDomain: ['POST', '/api/domains/:id/check'],
  removeDomain: ['POST', '/api/domains/:id/remove'],
  webhooks: ['GET', '/api/webhooks'],
  addWebhook: ['POST', '/api/webhooks'],
  updateWebhook: ['POST', '/api/webhooks/:id'],
  webhookEnabled: ['POST', '/api/webhooks/:id/enabled'],
  replayWebhookRange: ['POST', '/api/webhooks/:id/replay'],
  rotateWebhook: ['POST', '/api/webhooks/:id/rotate'],
  revealWebhookSecret: ['POST', '/api/webhooks/:id/secret'],
  testWebhook: ['POST', '/api/webhooks/:id/test'],
  removeWebhook: ['POST', '/api/webhooks/:id/remove'],
  webhookAttempts: ['GET', '/api/webhooks/:id/attempts'],
  replayWebhookMessage: ['POST', '/api/webhooks/messages/:messageId/replay'],
  keys: ['GET', '/api/keys'],
  createKey: ['POST', '/api/keys'],
  revokeKey: ['POST', '/api/keys/:id/revoke'],
  members: ['GET', '/api/members'],
  invite: ['POST', '/api/invites'],
  revokeInvite: ['POST', '/api/invites/:id/revoke'],
  changeRole: ['POST', '/api/members/:userId/role'],
  removeMember: ['POST', '/api/members/:userId/remove'],
  usage: ['GET', '/api/usage'],
  // The query string is the API's aggregates filters and range (from, to, interval).
  analytics: ['GET', '/api/analytics'],
  org: ['GET', '/api/org'],
  updateOrg: ['POST', '/api/org'],
  updatePrivacy: ['POST', '/api/org/privacy'],
} as const;

/** Non-JSON routes (downloads), by name: the SPA links to them. */
export const DOWNLOADS = {
  linkQr: '/api/links/:code/qr.:format',
  analyticsExport: '/api/analytics/export',
} as const;

export type RouteName = keyof typeof ROUTES;
export type DownloadName = keyof typeof DOWNLOADS;

/** The `:name` parameters of a path (a parameter ends at `/`; `.` may follow it, as in `:code/qr.:format`). */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
/** A route's or download's path parameters by name. */
export type ParamsOf<K extends RouteName | DownloadName> = {
  readonly [N in ParamNames<K extends RouteName ? (typeof ROUTES)[K][1] : (typeof DOWNLOADS)[K & DownloadName]>]: string;
};

/** The path of a route or download with its parameters filled in (each URI-encoded). */
export function pathOf(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}
