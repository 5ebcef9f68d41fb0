// Invariant: this table is the admin command line: every command, its options and what it runs.
// The usage texts, the option parser and the option checks are derived from it (command-table.ts),
// so a command is written down once. Each command returns one JSON-able object and a readable
// text; listings print tables and never a key's secret or its hash.
import { createInvite, inviteUrl, listInvites } from '../shared/accounts/invites.ts';
import { listMembers, removeMember } from '../shared/accounts/memberships.ts';
import { isRole, ROLES } from '../shared/accounts/roles.ts';
import { endUserSessions } from '../shared/accounts/sessions.ts';
import { disableTotp, findUserByEmail } from '../shared/accounts/users.ts';
import { listApps, registerApp, removeApp, updateStoreUrl } from '../shared/apps/mobile-app-repository.ts';
import { isPlatform } from '../shared/apps/platform.ts';
import type { Sql } from '../shared/db/database.ts';
import { AppError } from '../shared/errors/app-error.ts';
import { addDomain, listDomains, removeDomain } from '../shared/domains/domain-repository.ts';
import { addDomainToVerify, challengeRecord, listDomainStates } from '../shared/domains/domain-verification.ts';
import { linkNotFound } from '../shared/errors/domain-errors.ts';
import { DEFAULT_SCOPES, isScope, SCOPES } from '../shared/keys/model/scopes.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../shared/keys/key-repository.ts';
import { deleteLink } from '../shared/links/delete-link.ts';
import { findLinkByCode } from '../shared/links/link-repository.ts';
import { type Actor, saveLink, type LinkServiceDeps } from '../shared/links/save-link.ts';
import { isHttpUrl } from '../shared/links/url-rules.ts';
import type { Organization } from '../shared/orgs/organization.ts';
import {
  createOrganization,
  getOrganization,
  listOrganizations,
  setLimits,
  setPlan,
  setRetention,
  setSuspended,
  setTracking,
} from '../shared/orgs/org-repository.ts';
import { GEO_PRECISIONS, type GeoPrecision } from '../shared/analytics/model/tracking.ts';
import { MAX_RETENTION_DAYS } from '../shared/analytics/model/retention.ts';
import type { AnalyticsStore } from '../shared/analytics/store/analytics-store.ts';
import { sweepNow, type RetentionSettings } from '../shared/analytics/store/retention-schedule.ts';
import type { SweepReport } from '../shared/analytics/store/retention-sweep.ts';
import { isPlan, type Plan } from '../shared/orgs/plans.ts';
import { usageReport } from '../shared/quotas/usage-report.ts';
import { UsageError, type CommandSpec, type OptionSpec, type Values } from './command-table.ts';
import { textTable } from './text-table.ts';
import { replayMessages, sendTestEvent } from '../shared/webhooks/webhook-actions.ts';
import { WEBHOOK_EVENT_TYPES } from '../shared/webhooks/webhook-events.ts';
import {
  addEndpoint,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  setEndpointEnabled,
  updateEndpoint,
  type WebhookEndpoint,
  type WebhookSettings,
} from '../shared/webhooks/webhook-repository.ts';

export interface AdminContext {
  sql: Sql;
  /** The one save path's dependencies (linkServiceDeps), as the API has them. */
  links: LinkServiceDeps;
  /** The dashboard's origin, for the invite links printed. */
  dashboardUrl: string;
  /** WEBHOOK_ALLOW_PRIVATE and WEBHOOK_SECRETS_KEY. */
  webhooks: WebhookSettings;
  /** The analytics store, opened on first use, its rollup's backfill done. */
  analytics(): Promise<AnalyticsStore>;
  /** ANALYTICS_RETENTION_DAYS and ANALYTICS_ROLLUP_RETENTION_DAYS. */
  retention: RetentionSettings;
  now(): number;
}

export interface CommandResult {
  json: object;
  text: string;
}

export interface AdminCommand extends CommandSpec {
  run(ctx: AdminContext, values: Values): Promise<CommandResult>;
}

function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

function plan(value: string): Plan {
  const p = value.toUpperCase();
  if (!isPlan(p)) throw new UsageError(`--plan must be one of FREE, PRO, BUSINESS, ENTERPRISE`);
  return p;
}

function storeUrl(value: string): string {
  if (!isHttpUrl(value)) throw new UsageError('--store-url must be an absolute http(s) URL');
  return value;
}

function email(value: string): string {
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) throw new UsageError('--by must be an e-mail address');
  return value;
}

function limit(values: Values, name: string): number | null | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer or 'default'`);
  return Number(v);
}

const orgOf = (ctx: AdminContext, values: Values) => getOrganization(ctx.sql, need(values, 'org'));
const orgJson = (o: Organization) => ({
  id: o.id,
  name: o.name,
  plan: o.plan,
  timezone: o.timezone,
  suspended: o.suspended,
  limits: o.limits,
  overrides: o.overrides,
  tracking: o.tracking,
  retentionDays: o.retentionDays,
});
const status = (o: Organization) => (o.suspended ? 'suspended' : 'active');

const ORG: OptionSpec = { name: 'org', value: 'ID', required: true, help: 'the organisation id' };
const PLAN_VALUES = 'FREE|PRO|BUSINESS|ENTERPRISE';
const CODE: OptionSpec = { name: 'code', value: 'SHORT_CODE', required: true, help: "the link's short code" };
const BY: OptionSpec = { name: 'by', value: 'EMAIL', help: "who makes the change (recorded as the link's updatedBy; default admin-cli)" };
const LIMIT_HELP = "a non-negative integer, or 'default' to clear the override";

/** An on|off switch option; undefined when left out (the setting keeps its value). */
function onOff(values: Values, name: string): boolean | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new UsageError(`--${name} must be on or off`);
}

function geoPrecision(values: Values): GeoPrecision | undefined {
  const v = values.geo;
  if (v === undefined) return undefined;
  if (typeof v === 'string' && (GEO_PRECISIONS as readonly string[]).includes(v)) return v as GeoPrecision;
  throw new UsageError(`--geo must be one of ${GEO_PRECISIONS.join(', ')}`);
}

const trackingText = (o: Organization): string =>
  `referrer ${o.tracking.referrer ? 'on' : 'off'}, user-agent ${o.tracking.userAgent ? 'on' : 'off'}, geo ${o.tracking.geo}, dnt ${o.tracking.dnt ? 'on' : 'off'}`;

/** Who changes a link from the CLI: the organisation of --org, recorded as --by (default admin-cli). */
async function linkActor(ctx: AdminContext, values: Values): Promise<Actor> {
  return { org: await orgOf(ctx, values), attribution: values.by === undefined ? 'admin-cli' : email(need(values, 'by')), via: 'INTERNAL' };
}

/** Archives (isActive=false) or restores a link of the organisation, through the one save path. */
async function setLinkActive(ctx: AdminContext, values: Values, isActive: boolean): Promise<CommandResult> {
  const actor = await linkActor(ctx, values);
  const code = need(values, 'code');
  const link = await findLinkByCode(ctx.sql, code);
  if (link === null || link.orgId !== actor.org.id) throw linkNotFound(code);
  const { view } = await saveLink(ctx.links, actor, { url: link.url, shortCode: code, isActive });
  return { json: view, text: `${view.smartLink} ${isActive ? 'restored (active)' : 'archived'}` };
}

function sweepText(r: SweepReport): string {
  if (r.skipped !== null) return `nothing removed: ${r.skipped}`;
  const months = r.events.partitionsDropped.length > 0 ? ` (whole months dropped: ${r.events.partitionsDropped.join(', ')})` : '';
  const cut = r.events.cutoff === null ? 'no service-wide retention' : `service cut-off ${r.events.cutoff}`;
  const own = r.events.organisationsWithOwnRetention;
  const rollup = r.rollup.cutoff === null ? 'the rollup is kept for good' : `${r.rollup.removed} rollup rows before ${r.rollup.cutoff} removed`;
  return `${r.events.removed} raw events removed${months}; ${cut}, ${own} organisation${own === 1 ? '' : 's'} with their own; ${rollup}; ${r.durationMs} ms`;
}

const ENDPOINT: OptionSpec = { name: 'id', value: 'ENDPOINT_ID', required: true, help: "the endpoint's id (webhook list)" };
const endpointJson = (e: WebhookEndpoint) => ({ ...e, secret: `…${e.secretLast4}` });

function instant(values: Values, name: string): Date {
  const v = need(values, name);
  const at = new Date(v);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 instant (e.g. 2026-11-24T10:00:00Z)`);
  return at;
}

async function setEndpoint(ctx: AdminContext, v: Values, enabled: boolean): Promise<CommandResult> {
  const e = await setEndpointEnabled(ctx.sql, (await orgOf(ctx, v)).id, need(v, 'id'), enabled);
  return { json: endpointJson(e), text: `${e.id} ${e.enabled ? 'enabled' : 'disabled'}` };
}

const WEBHOOK_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'webhook add',
    summary: 'Adds a webhook endpoint (https; a host resolving to a private address is refused) and prints its secret once.',
    options: [
      ORG,
      { name: 'url', value: 'URL', required: true, help: 'the https URL messages are POSTed to' },
      { name: 'events', value: 'TYPES', required: true, help: `comma-separated event types: ${WEBHOOK_EVENT_TYPES.join(', ')}` },
    ],
    run: async (ctx, v) => {
      const org = await orgOf(ctx, v);
      const { endpoint, secret } = await addEndpoint(ctx.sql, ctx.webhooks, org.id, { url: need(v, 'url'), eventTypes: need(v, 'events').split(',') });
      return { json: { ...endpoint, secret }, text: `${endpoint.id} ${endpoint.url}\nsecret (shown once): ${secret}` };
    },
  },
  {
    name: 'webhook update',
    summary: "Changes an endpoint's URL (the same checks as add) or the event types it wants.",
    options: [
      ORG,
      ENDPOINT,
      { name: 'url', value: 'URL', help: 'the new https URL' },
      { name: 'events', value: 'TYPES', help: `the new comma-separated event types: ${WEBHOOK_EVENT_TYPES.join(', ')}` },
    ],
    run: async (ctx, v) => {
      if (typeof v.url !== 'string' && typeof v.events !== 'string') throw new UsageError('give --url, --events or both');
      const e = await updateEndpoint(ctx.sql, ctx.webhooks, (await orgOf(ctx, v)).id, need(v, 'id'), {
        url: typeof v.url === 'string' ? v.url : undefined,
        eventTypes: typeof v.events === 'string' ? v.events.split(',') : undefined,
      });
      return { json: endpointJson(e), text: `${e.id} ${e.url} ${e.eventTypes.join(',')}` };
    },
  },
  {
    name: 'webhook list',
    summary: "Lists the organisation's webhook endpoints (a secret's last 4 characters only).",
    options: [ORG],
    run: async (ctx, v) => {
      const list = await listEndpoints(ctx.sql, (await orgOf(ctx, v)).id);
      return {
        json: { endpoints: list.map(endpointJson) },
        text: textTable(
          ['ID', 'URL', 'EVENTS', 'SECRET', 'STATUS'],
          list.map((e) => [
            e.id,
            e.url,
            e.eventTypes.join(','),
            `…${e.secretLast4}`,
            e.enabled ? 'enabled' : `disabled${e.disabledReason ? ` (${e.disabledReason})` : ''}`,
          ]),
        ),
      };
    },
  },
  {
    name: 'webhook remove',
    summary: 'Removes an endpoint; its pending messages are dropped (its log stays 30 days).',
    options: [ORG, ENDPOINT],
    run: async (ctx, v) => {
      const e = await removeEndpoint(ctx.sql, (await orgOf(ctx, v)).id, need(v, 'id'));
      return { json: { removed: e.id }, text: `${e.id} removed` };
    },
  },
  {
    name: 'webhook enable',
    summary: 'Enables an endpoint (also one disabled after a 410).',
    options: [ORG, ENDPOINT],
    run: (ctx, v) => setEndpoint(ctx, v, true),
  },
  {
    name: 'webhook disable',
    summary: 'Disables an endpoint: nothing is queued or sent to it until it is enabled.',
    options: [ORG, ENDPOINT],
    run: (ctx, v) => setEndpoint(ctx, v, false),
  },
  {
    name: 'webhook rotate',
    summary: 'Gives an endpoint a new secret (printed once); the previous one also signs for 24 h.',
    options: [ORG, ENDPOINT],
    run: async (ctx, v) => {
      const { endpoint, secret } = await rotateSecret(ctx.sql, ctx.webhooks, (await orgOf(ctx, v)).id, need(v, 'id'));
      return { json: { ...endpointJson(endpoint), secret }, text: `new secret (shown once; the previous one signs for 24 h): ${secret}` };
    },
  },
  {
    name: 'webhook test',
    summary: 'Queues a test event (type webhook.test) for an endpoint.',
    options: [ORG, ENDPOINT],
    run: async (ctx, v) => {
      const id = await sendTestEvent(ctx.sql, (await orgOf(ctx, v)).id, need(v, 'id'));
      return { json: { webhookId: id }, text: `queued ${id}` };
    },
  },
  {
    name: 'webhook replay',
    summary: 'Sends a message again with its webhook-id: one (--message), or every message of an endpoint created in [--from, --to).',
    options: [
      ORG,
      { name: 'message', value: 'WEBHOOK_ID', help: 'the message to send again' },
      { name: 'id', value: 'ENDPOINT_ID', help: 'the endpoint whose messages to send again (with --from and --to)' },
      { name: 'from', value: 'INSTANT', help: 'start of the range (inclusive)' },
      { name: 'to', value: 'INSTANT', help: 'end of the range (exclusive)' },
    ],
    run: async (ctx, v) => {
      const org = await orgOf(ctx, v);
      let ids: string[];
      if (typeof v.message === 'string') ids = await replayMessages(ctx.sql, org.id, { messageId: v.message });
      else if (typeof v.id === 'string') ids = await replayMessages(ctx.sql, org.id, { endpointId: v.id, from: instant(v, 'from'), to: instant(v, 'to') });
      else throw new UsageError('give --message, or --id with --from and --to');
      return { json: { replayed: ids }, text: `${ids.length} message(s) queued again` };
    },
  },
];

export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'org create',
    summary: 'Creates an organisation.',
    options: [
      { name: 'name', value: 'N', required: true, help: 'display name' },
      { name: 'plan', value: PLAN_VALUES, help: 'plan (default FREE)' },
      { name: 'timezone', value: 'TZ', help: 'IANA reporting time zone (default Europe/Berlin)' },
    ],
    run: async (ctx, v) => {
      const o = await createOrganization(ctx.sql, { name: need(v, 'name'), plan: plan(String(v.plan ?? 'FREE')), timezone: v.timezone as string | undefined });
      return { json: orgJson(o), text: `organisation ${o.id} (${o.plan}, ${o.timezone})` };
    },
  },
  {
    name: 'org list',
    summary: 'Lists every organisation with its plan and status.',
    options: [],
    run: async (ctx) => {
      const orgs = await listOrganizations(ctx.sql);
      return {
        json: { organizations: orgs.map(orgJson) },
        text: textTable(
          ['ID', 'NAME', 'PLAN', 'TIMEZONE', 'STATUS'],
          orgs.map((o) => [o.id, o.name, o.plan, o.timezone, status(o)]),
        ),
      };
    },
  },
  {
    name: 'org set-plan',
    summary: 'Moves an organisation to another plan.',
    options: [ORG, { name: 'plan', value: PLAN_VALUES, required: true, help: 'the new plan' }],
    run: async (ctx, v) => {
      const o = await setPlan(ctx.sql, need(v, 'org'), plan(need(v, 'plan')));
      return { json: orgJson(o), text: `organisation ${o.id} is now on ${o.plan}` };
    },
  },
  {
    name: 'org set-limits',
    summary: "Overrides some of the plan's limits for one organisation.",
    options: [
      ORG,
      { name: 'links-per-month', value: 'N', help: LIMIT_HELP },
      { name: 'clicks-per-month', value: 'N', help: LIMIT_HELP },
      { name: 'crud-per-min', value: 'N', help: LIMIT_HELP },
      { name: 'analytics-per-min', value: 'N', help: LIMIT_HELP },
      { name: 'export-per-min', value: 'N', help: LIMIT_HELP },
    ],
    run: async (ctx, v) => {
      const o = await setLimits(ctx.sql, need(v, 'org'), {
        linksPerMonth: limit(v, 'links-per-month'),
        clicksPerMonth: limit(v, 'clicks-per-month'),
        crudPerMin: limit(v, 'crud-per-min'),
        analyticsPerMin: limit(v, 'analytics-per-min'),
        exportPerMin: limit(v, 'export-per-min'),
      });
      return { json: orgJson(o), text: `limits of ${o.id}: ${JSON.stringify(o.limits)}` };
    },
  },
  {
    name: 'org set-tracking',
    summary: "Chooses what the organisation's events keep of the visitor; clicks follow within seconds. Flags left out keep their values.",
    options: [
      ORG,
      { name: 'referrer', value: 'on|off', help: 'keep the referrer and its domain' },
      { name: 'user-agent', value: 'on|off', help: 'keep the browser, OS and device (the bot category is always kept)' },
      { name: 'geo', value: GEO_PRECISIONS.join('|'), help: 'keep city and region, the country only, or no place' },
      { name: 'dnt', value: 'on|off', help: 'honour DNT: 1 and Sec-GPC: 1 (such a visit is counted with every visitor field empty)' },
    ],
    run: async (ctx, v) => {
      const o = await setTracking(ctx.sql, need(v, 'org'), {
        referrer: onOff(v, 'referrer'),
        userAgent: onOff(v, 'user-agent'),
        geo: geoPrecision(v),
        dnt: onOff(v, 'dnt'),
      });
      return { json: orgJson(o), text: `tracking of ${o.id}: ${trackingText(o)}` };
    },
  },
  {
    name: 'org set-retention',
    summary: "Keeps the organisation's raw events this many days ('default' follows ANALYTICS_RETENTION_DAYS); aggregates keep counting them.",
    options: [ORG, { name: 'days', value: 'N', required: true, help: `1 to ${MAX_RETENTION_DAYS}, or 'default'` }],
    run: async (ctx, v) => {
      const days = need(v, 'days');
      if (days !== 'default' && !/^\d+$/.test(days))
        throw new UsageError(`--days must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or 'default'`);
      const o = await setRetention(ctx.sql, need(v, 'org'), days === 'default' ? null : Number(days));
      return {
        json: orgJson(o),
        text: `raw events of ${o.id} are kept ${o.retentionDays === null ? "as the service's ANALYTICS_RETENTION_DAYS says" : `${o.retentionDays} days`}`,
      };
    },
  },
  {
    name: 'org suspend',
    summary: 'Suspends an organisation: its API keys get 403 SML010 and its links answer 403 SML010 (within a second), counting no click.',
    options: [ORG],
    run: async (ctx, v) => {
      const o = await setSuspended(ctx.sql, need(v, 'org'), true);
      return { json: orgJson(o), text: `organisation ${o.id} suspended` };
    },
  },
  {
    name: 'org resume',
    summary: 'Ends a suspension: the API and the links work again.',
    options: [ORG],
    run: async (ctx, v) => {
      const o = await setSuspended(ctx.sql, need(v, 'org'), false);
      return { json: orgJson(o), text: `organisation ${o.id} active` };
    },
  },
  {
    name: 'key create',
    summary: 'Creates an API key; its value is printed once and stored only as a hash.',
    options: [
      ORG,
      { name: 'label', value: 'L', required: true, help: 'a label unique in the organisation' },
      {
        name: 'scopes',
        value: 'S1,S2',
        help: `comma-separated scopes, of ${SCOPES.join(', ')} (default: ${DEFAULT_SCOPES.join(',')})`,
      },
    ],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      // Listed scopes, each once, in the vocabulary's order; at least one.
      const listed =
        v.scopes === undefined
          ? [...DEFAULT_SCOPES]
          : String(v.scopes)
              .split(',')
              .map((s) => s.trim());
      const bad = listed.filter((s) => !isScope(s));
      if (bad.length) throw new UsageError(`unknown scope(s) ${bad.map((s) => `'${s}'`).join(', ')}; valid: ${SCOPES.join(', ')}`);
      const scopes = SCOPES.filter((s) => listed.includes(s));
      const k = await createApiKey(ctx.sql, o.id, need(v, 'label'), scopes);
      return { json: k, text: `key '${k.label}' (${k.scopes.join(', ')}), shown once:\n${k.key}` };
    },
  },
  {
    name: 'key revoke',
    summary: 'Revokes an API key for good.',
    options: [ORG, { name: 'label', value: 'L', required: true, help: "the key's label" }],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      const k = await revokeApiKey(ctx.sql, o.id, need(v, 'label'));
      return { json: k, text: `key '${k.label}' revoked` };
    },
  },
  {
    name: 'key list',
    summary: "Lists an organisation's API keys (labels, scopes, status; never a key's value or hash).",
    options: [ORG],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      const keys = await listApiKeys(ctx.sql, o.id);
      return {
        json: { keys },
        text: textTable(
          ['LABEL', 'STATUS', 'SCOPES', 'CREATED'],
          keys.map((k) => [k.label, k.revokedAt ? 'revoked' : 'active', k.scopes.join(','), k.createdAt]),
        ),
      };
    },
  },
  {
    name: 'app register',
    summary: 'Registers a mobile app for deep links.',
    options: [
      ORG,
      { name: 'name', value: 'N', required: true, help: 'display name' },
      { name: 'platform', value: 'IOS|ANDROID|WEB', required: true, help: 'the platform the app serves' },
      { name: 'store-url', value: 'U', required: true, help: 'absolute http(s) store URL' },
    ],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      const platform = need(v, 'platform').toUpperCase();
      if (!isPlatform(platform)) throw new UsageError('--platform must be IOS, ANDROID or WEB');
      const a = await registerApp(ctx.sql, { orgId: o.id, name: need(v, 'name'), platform, storeUrl: storeUrl(need(v, 'store-url')) });
      return { json: a, text: `app ${a.mobileAppId} (${a.platform})` };
    },
  },
  {
    name: 'app list',
    summary: "Lists an organisation's mobile apps, removed ones included.",
    options: [ORG],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      const apps = await listApps(ctx.sql, o.id);
      return {
        json: { apps },
        text: textTable(
          ['MOBILE APP ID', 'PLATFORM', 'NAME', 'STATUS', 'STORE URL'],
          apps.map((a) => [a.mobileAppId, a.platform, a.name, a.active ? 'active' : 'removed', a.storeUrl]),
        ),
      };
    },
  },
  {
    name: 'app update',
    summary: "Changes an app's store URL.",
    options: [
      ORG,
      { name: 'app', value: 'MOBILE_APP_ID', required: true, help: 'the app' },
      { name: 'store-url', value: 'U', required: true, help: 'absolute http(s) store URL' },
    ],
    run: async (ctx, v) => {
      const a = await updateStoreUrl(ctx.sql, need(v, 'org'), need(v, 'app'), storeUrl(need(v, 'store-url')));
      return { json: a, text: `app ${a.mobileAppId} store URL set` };
    },
  },
  {
    name: 'app remove',
    summary: 'Removes an app (it becomes inactive; deep links to it fall back).',
    options: [ORG, { name: 'app', value: 'MOBILE_APP_ID', required: true, help: 'the app' }],
    run: async (ctx, v) => {
      const a = await removeApp(ctx.sql, need(v, 'org'), need(v, 'app'));
      return { json: a, text: `app ${a.mobileAppId} removed (inactive)` };
    },
  },
  {
    name: 'domain add',
    summary:
      "Adds a custom domain (it then serves only this organisation's links); with --verify it waits for its DNS TXT record, as one added on the dashboard does.",
    options: [
      ORG,
      { name: 'host', value: 'H', required: true, help: 'the host name' },
      { name: 'primary', help: "make it the organisation's primary domain" },
      { name: 'verify', help: 'add it PENDING: it serves once _shortlink-challenge.<host> holds the printed TXT value' },
    ],
    run: async (ctx, v) => {
      if (v.verify === true) {
        if (v.primary === true) throw new UsageError('--primary applies to a domain added without --verify');
        const d = await addDomainToVerify(ctx.sql, await orgOf(ctx, v), need(v, 'host'));
        const record = challengeRecord(d.host, d.token ?? '');
        return {
          json: { id: d.id, orgId: d.orgId, host: d.host, status: d.status, record },
          text: `domain ${d.host} added, PENDING: create the TXT record ${record.name} with the value ${record.value}`,
        };
      }
      const d = await addDomain(ctx.sql, await orgOf(ctx, v), need(v, 'host'), v.primary === true);
      return { json: d, text: `domain ${d.host}${d.isPrimary ? ' (primary)' : ''} added` };
    },
  },
  {
    name: 'domain list',
    summary: "Lists an organisation's custom domains, removed ones included.",
    options: [ORG],
    run: async (ctx, v) => {
      const o = await orgOf(ctx, v);
      const all = await listDomains(ctx.sql, o.id);
      const current = new Map((await listDomainStates(ctx.sql, o.id)).map((d) => [d.id, d.status]));
      const domains = all.map((d) => ({ ...d, status: current.get(d.id) ?? 'REMOVED' }));
      return {
        json: { domains },
        text: textTable(
          ['HOST', 'PRIMARY', 'STATUS'],
          domains.map((d) => [d.host, d.isPrimary ? 'yes' : 'no', d.status === 'REMOVED' ? 'removed' : d.active ? 'active' : d.status.toLowerCase()]),
        ),
      };
    },
  },
  {
    name: 'domain remove',
    summary: 'Removes a custom domain (its links fall back to the default short domain).',
    options: [ORG, { name: 'host', value: 'H', required: true, help: 'the host name' }],
    run: async (ctx, v) => {
      const d = await removeDomain(ctx.sql, need(v, 'org'), need(v, 'host'));
      return { json: d, text: `domain ${d.host} removed` };
    },
  },
  {
    name: 'link create',
    summary: 'Creates a link with a generated short code.',
    options: [
      ORG,
      { name: 'url', value: 'U', required: true, help: 'the destination URL' },
      { name: 'by', value: 'EMAIL', required: true, help: 'who creates it (an e-mail address)' },
    ],
    run: async (ctx, v) => {
      const by = email(need(v, 'by'));
      const { view } = await saveLink(ctx.links, { org: await orgOf(ctx, v), attribution: by, via: 'INTERNAL' }, { url: need(v, 'url') });
      return { json: view, text: `${view.smartLink} -> ${view.url}` };
    },
  },
  {
    name: 'link archive',
    summary: 'Archives a link (isActive=false): opening it answers 410 EN002; it is not deleted.',
    options: [ORG, CODE, BY],
    run: (ctx, v) => setLinkActive(ctx, v, false),
  },
  {
    name: 'link restore',
    summary: 'Restores an archived link (isActive=true): it redirects again.',
    options: [ORG, CODE, BY],
    run: (ctx, v) => setLinkActive(ctx, v, true),
  },
  {
    name: 'link delete',
    summary:
      'Deletes a link for good: it answers 404 EN001 everywhere, its code is never given out again, webhooks get link.deleted. Its analytics events stay (the API purges them).',
    options: [ORG, CODE, BY],
    run: async (ctx, v) => {
      const { view } = await deleteLink(ctx.links, await linkActor(ctx, v), { shortCode: need(v, 'code') });
      return { json: view, text: `${view.smartLink} deleted; its code is never given out again` };
    },
  },
  {
    name: 'analytics sweep',
    summary:
      "Removes now the raw events past their retention (ANALYTICS_RETENTION_DAYS, or the organisation's own) and the rollup's slots past ANALYTICS_ROLLUP_RETENTION_DAYS, and prints what went. The ingest worker (npm start: the service) does it at start and hourly.",
    options: [],
    run: async (ctx) => {
      const report = await sweepNow(ctx.sql, await ctx.analytics(), ctx.retention);
      return { json: report, text: sweepText(report) };
    },
  },
  {
    name: 'user invite',
    summary: 'Invites a person to the organisation: prints the link that sets their password (valid 7 days, works once).',
    options: [
      ORG,
      { name: 'email', value: 'E', required: true, help: 'their e-mail address' },
      { name: 'role', value: ROLES.join('|'), required: true, help: 'their role in the organisation' },
    ],
    run: async (ctx, v) => {
      const org = await orgOf(ctx, v);
      const role = need(v, 'role');
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const { invite, token } = await createInvite(ctx.sql, { orgId: org.id, email: need(v, 'email'), role, invitedBy: 'admin-cli' });
      const url = inviteUrl(ctx.dashboardUrl, token);
      return { json: { inviteUrl: url, email: invite.email, role: invite.role, expiresAt: invite.expiresAt }, text: url };
    },
  },
  {
    name: 'user list',
    summary: "Lists the organisation's members (e-mail, role, 2FA) and pending invitations.",
    options: [ORG],
    run: async (ctx, v) => {
      const org = await orgOf(ctx, v);
      const members = await listMembers(ctx.sql, org.id);
      const invites = await listInvites(ctx.sql, org.id);
      return {
        json: {
          users: members.map((m) => ({ email: m.email, role: m.role, twoFactor: m.twoFactor, since: m.since })),
          invites: invites.map((i) => ({ email: i.email, role: i.role, invitedBy: i.invitedBy, expiresAt: i.expiresAt })),
        },
        text: textTable(
          ['E-MAIL', 'ROLE', '2FA', 'STATUS'],
          [
            ...members.map((m) => [m.email, m.role, m.twoFactor ? 'on' : 'off', 'member']),
            ...invites.map((i) => [i.email ?? '(any)', i.role, '', `invited until ${i.expiresAt}`]),
          ],
        ),
      };
    },
  },
  {
    name: 'user remove',
    summary: 'Removes a member from the organisation (an organisation keeps at least one owner).',
    options: [ORG, { name: 'email', value: 'E', required: true, help: 'their e-mail address' }],
    run: async (ctx, v) => {
      const org = await orgOf(ctx, v);
      const user = await findUserByEmail(ctx.sql, need(v, 'email'));
      if (!user) throw new AppError('EN001', 'Member not found');
      await removeMember(ctx.sql, null, org.id, user.id);
      return { json: { removed: user.email, orgId: org.id }, text: `${user.email} removed from ${org.id}` };
    },
  },
  {
    name: 'user reset-2fa',
    summary: "Turns a user's two-factor authentication off (secret and recovery codes) and ends their sessions.",
    options: [{ name: 'email', value: 'E', required: true, help: 'their e-mail address' }],
    run: async (ctx, v) => {
      const user = await findUserByEmail(ctx.sql, need(v, 'email'));
      if (!user) throw new AppError('EN001', 'User not found');
      await disableTotp(ctx.sql, user.id);
      const ended = await endUserSessions(ctx.sql, user.id);
      return { json: { email: user.email, twoFactor: false, sessionsEnded: ended }, text: `2FA off for ${user.email}; ${ended} session(s) ended` };
    },
  },
  {
    name: 'usage',
    summary: "Reports this month's links and clicks, overage and its charge.",
    options: [ORG],
    run: async (ctx, v) => {
      const r = await usageReport(ctx.sql, await orgOf(ctx, v), ctx.now());
      return {
        json: r,
        text: `links ${r.links.used}/${r.links.limit} (overage ${r.links.overage}, ${r.links.overageEur} EUR); clicks ${r.clicks.used}/${r.clicks.limit} (overage ${r.clicks.overage}, ${r.clicks.overageEur} EUR); total ${r.totalOverageEur} EUR`,
      };
    },
  },
  ...WEBHOOK_COMMANDS,
];
