// Invariant: the answer to a short-link request is a pure function of the resolved entities, the
// request facts and the clock: no I/O, no randomness, no mutation. The handler only gathers the
// inputs and writes what this returns. Order of rules: unknown code (or a custom domain asked for
// another organisation's code) → 404 EN001; suspended organisation → 403 SML010 (QR and crawlers
// included, nothing recorded); archived → 410 EN002; QR image; FREE quota exhausted → 402 QE002
// (bots, crawlers included, are never counted, so never refused); expired (expiresAt passed, or maxClicks used
// up) → 302 to expiredUrl or 410 EN003; password without a valid cookie → the form (JSON: 401
// SML011; crawlers: a preview without the destination's metadata); preview crawler → OG page;
// the first link rule that holds (cloaked when the link is); deep link for the visitor's
// platform; cloak frame (unless the destination refuses framing); plain 302 to the normalised
// destination (404 EN001 when the stored destination is no safe http(s) URL). Only a visit that
// goes through records a hit; nothing expired, refused or asked for a password does.
import type { ClickSource, EventType } from '../analytics/model/event-values.ts';
import type { AppError } from '../errors/app-error.ts';
import { accessDenied, linkArchived, linkExpired, linkNotFound, passwordRequired } from '../errors/domain-errors.ts';
import { clickQuotaExhausted } from '../orgs/plan-errors.ts';
import { suggestLimitUpgrade } from '../orgs/plans.ts';
import type { MobileApp } from '../apps/mobile-app-repository.ts';
import type { Domain } from '../domains/domain-repository.ts';
import type { DeepLink, Link } from '../links/link.ts';
import { smartLinkOf } from '../links/smart-link.ts';
import type { Organization } from '../orgs/organization.ts';
import { billingPeriod } from '../quotas/billing-period.ts';
import type { QuotaView } from '../quotas/quota-view.ts';
import { negotiate } from './content-negotiation.ts';
import { appOpenPage, cloakPage, crawlerPage, errorPage, type HtmlPage, passwordPage, protectedPreviewPage } from './html-pages.ts';
import { detectPlatform } from './platform-detection.ts';
import { clickSourceOf, type RequestFacts } from './request-facts.ts';
import type { Outcome } from './model/outcomes.ts';
import { RequestVisitor } from './visitor.ts';
import { androidIntentUrl, safeDeepLinkUrl, safeWebUrl } from '../links/safe-url.ts';

export type Route = { kind: 'visit'; shortCode: string } | { kind: 'qr'; shortCode: string; format: 'svg' | 'png' };

export interface DecisionInput {
  route: Route;
  link: Link | null;
  /** The request host's active custom domain; null when the host is not one. */
  hostDomain: Domain | null;
  /** The active custom domain registered under the link's domainHost (QR route only). */
  linkDomain: Domain | null;
  /** The link's organisation (its `suspended` flag included); null without a link the host serves. */
  org: Organization | null;
  /** Apps of the link's deep-link entries by mobileAppId; null or missing = unknown app. */
  apps: ReadonlyMap<string, MobileApp | null>;
  /** Admission of one more click; null when not needed (a bot, no link…). */
  quota: QuotaView | null;
  /** Origin of the default smart links (shortLinkBase in shared/config). */
  shortLinkBase: string;
  /** The visitor's country (ISO code); looked up only when the link has a country rule, else null. */
  country: string | null;
  /** The link's maxClicks are used up (its shared counter refused one more). */
  clicksExhausted: boolean;
  /** The request carries a valid password cookie for this link (only asked for links with a password). */
  passwordOk: boolean;
}

export interface HitSpec {
  eventType: EventType;
  clickSource: ClickSource;
}

/** Read-only: an answer may be shared between requests (the 404 of an unknown code is). */
export interface HttpAnswer {
  readonly kind: 'answer';
  readonly status: string;
  readonly location: string | null;
  readonly contentType: string | null;
  readonly contentSecurityPolicy: string | null;
  readonly body: string;
  readonly outcome: Outcome;
  /** The event to record; null for HEAD and errors. */
  readonly hit: HitSpec | null;
  /** Index of the link rule that set the destination; null when none held. */
  readonly rule: number | null;
}

export interface QrAnswer {
  kind: 'qr';
  format: 'svg' | 'png';
  /** The text to encode: the smart link with ?qr=1. */
  content: string;
  outcome: 'qr';
}

export type Decision = HttpAnswer | QrAnswer;

export const REDIRECT_CACHE_CONTROL = 'private, max-age=0';
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json';

/** Whether the click quota must be consulted for this request (a person's visit, or its HEAD twin: bots never count). */
export function quotaApplies(input: Pick<DecisionInput, 'route' | 'link' | 'hostDomain' | 'org'>, facts: RequestFacts): boolean {
  const { link } = input;
  return input.route.kind === 'visit' && link !== null && link.isActive && !isSuspended(input.org) && hostServes(input.hostDomain, link) && facts.bot === null;
}

/** A suspended organisation's links answer 403 SML010; an unknown organisation is not suspended. */
export function isSuspended(org: Organization | null): boolean {
  return org?.suspended === true;
}

export function hostServes(hostDomain: Domain | null, link: Link): boolean {
  return hostDomain === null || hostDomain.orgId === link.orgId;
}

export function decideRedirect(input: DecisionInput, facts: RequestFacts, nowMs: number): Decision {
  const { route, link } = input;
  if (link === null || !hostServes(input.hostDomain, link)) return notFoundAnswer(route.shortCode, facts);
  if (isSuspended(input.org)) return errorAnswer(accessDenied(), 'suspended', route.shortCode, facts);
  if (!link.isActive) return errorAnswer(linkArchived(), 'archived', route.shortCode, facts);

  if (route.kind === 'qr') {
    const domainHost = input.linkDomain !== null && input.linkDomain.orgId === link.orgId ? input.linkDomain.host : null;
    return { kind: 'qr', format: route.format, content: `${smartLinkOf(domainHost, input.shortLinkBase, link.shortCode)}?qr=1`, outcome: 'qr' };
  }

  const record = facts.method === 'GET';
  const destination = link.safeDestination;
  const crawler = facts.bot === 'LINK_PREVIEW';

  // A bot is never counted (quotaApplies), so never refused for the quota.
  const quota = input.quota;
  if (quota !== null && !quota.allowed && facts.bot === null) {
    const error = clickQuotaExhausted({
      shortCode: link.shortCode,
      currentClicks: quota.currentClicks,
      clicksLimit: quota.clicksLimit,
      periodEnd: billingPeriod(nowMs).periodEnd,
      currentPlan: quota.plan,
      suggestedUpgradeTo: suggestLimitUpgrade(quota.plan, 'clicksPerMonth'),
    });
    return errorAnswer(error, 'quota_exhausted', link.shortCode, facts);
  }

  if ((link.expiresAtMs !== null && nowMs >= link.expiresAtMs) || input.clicksExhausted) {
    if (link.safeExpiredUrl !== null) return redirectAnswer(link.safeExpiredUrl, 'expired', null, null);
    return errorAnswer(linkExpired(), 'expired', link.shortCode, facts);
  }

  if (link.passwordHash !== null && !input.passwordOk) {
    if (crawler) return htmlAnswer(protectedPreviewPage(shortUrlOf(input, link)), 'preview', null, null);
    return passwordAnswer(link.shortCode, facts, null);
  }

  if (crawler) {
    const shortUrl = shortUrlOf(input, link);
    const page = crawlerPage(link.effectivePreviewMetadata, shortUrl, destination ?? shortUrl);
    return htmlAnswer(page, 'preview', record ? { eventType: 'METADATA_PREVIEW', clickSource: clickSourceOf(facts) } : null, null);
  }

  const hit: HitSpec | null = record ? { eventType: 'CLICK', clickSource: clickSourceOf(facts) } : null;

  if (link.compiledRules.rules.length > 0) {
    const rule = link.compiledRules.match(new RequestVisitor(facts, input.country), nowMs);
    if (rule !== null && rule.destination !== null) {
      if (link.cloakEnabled) return htmlAnswer(cloakPage(rule.destination, link.effectivePreviewMetadata, shortUrlOf(input, link)), 'cloak', hit, rule.index);
      return redirectAnswer(rule.destination, 'rule', hit, rule.index);
    }
  }

  if (link.deepLinks.length > 0) {
    const chosen = pickDeepLink(link, input.apps, facts.userAgent);
    if (chosen !== null && chosen.entry.linkBehaviour !== 'webBrowser') {
      const answer = deepLinkAnswer(chosen.entry, chosen.app, link, hit);
      if (answer !== null) return answer;
    }
  }

  // A stored destination that is no safe http(s) URL (a row older than the save rules) is never
  // sent: the Location is always the normalised `new URL(u).href` (safe-url.ts).
  if (destination === null) return errorAnswer(linkNotFound(link.shortCode), 'not_found', link.shortCode, facts);
  if (link.cloakEnabled && link.preview?.frameRefused !== true) {
    return htmlAnswer(cloakPage(destination, link.effectivePreviewMetadata, shortUrlOf(input, link)), 'cloak', hit, null);
  }
  return redirectAnswer(destination, 'redirect', hit, null);
}

/**
 * A password-protected link's answer without a valid cookie: the form (200, with `problem` next
 * to the field) for a browser, 401 SML011 for anyone else.
 */
export function passwordAnswer(shortCode: string, facts: Pick<RequestFacts, 'accept' | 'query'>, problem: string | null): HttpAnswer {
  if (negotiate(facts.accept).prefersHtml) return htmlAnswer(passwordPage(shortCode, facts.query, problem), 'password_required', null, null);
  return errorAnswer(passwordRequired(), 'password_required', shortCode, facts);
}

/** The link as the visitor asked for it, on the host they asked (only pages show it: a plain redirect never builds it). */
function shortUrlOf(input: DecisionInput, link: Link): string {
  return smartLinkOf(input.hostDomain?.host ?? null, input.shortLinkBase, link.shortCode);
}

/** The entry whose registered app serves the visitor's platform (WEB serves non-mobile devices). */
export function pickDeepLink(link: Link, apps: ReadonlyMap<string, MobileApp | null>, userAgent: string): { entry: DeepLink; app: MobileApp } | null {
  const platform = detectPlatform(userAgent);
  const wanted = platform === 'OTHER' ? 'WEB' : platform;
  for (const entry of link.deepLinks) {
    const app = apps.get(entry.mobileAppId);
    if (app?.active && app.orgId === link.orgId && app.platform === wanted) return { entry, app };
  }
  return null;
}

function deepLinkAnswer(entry: DeepLink, app: MobileApp, link: Link, hit: HitSpec | null): HttpAnswer | null {
  const store = safeWebUrl(app.storeUrl);
  const fallback = (entry.fallbackEnabled ? safeWebUrl(entry.fallbackUrl) : null) ?? store ?? link.safeDestination;
  if (fallback === null) return null;
  const deeplink = safeDeepLinkUrl(entry.deeplinkUrl);
  if (deeplink === null) return redirectAnswer(fallback, 'app_fallback', hit, null);
  const open = app.platform === 'ANDROID' ? androidIntentUrl(deeplink, fallback, app.storeUrl) : deeplink;
  return htmlAnswer(appOpenPage(open, fallback, link.effectivePreviewMetadata), 'app_page', hit, null);
}

function redirectAnswer(location: string, outcome: Outcome, hit: HitSpec | null, rule: number | null): HttpAnswer {
  return { kind: 'answer', status: '302 Found', location, contentType: null, contentSecurityPolicy: null, body: '', outcome, hit, rule };
}

function htmlAnswer(page: HtmlPage, outcome: Outcome, hit: HitSpec | null, rule: number | null): HttpAnswer {
  return { kind: 'answer', status: '200 OK', location: null, contentType: HTML, contentSecurityPolicy: page.csp, body: page.body, outcome, hit, rule };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  410: 'Gone',
  429: 'Too Many Requests',
  413: 'Payload Too Large',
};

/** At most this many short codes keep their 404 answers (JSON and HTML) ready; then all are dropped. */
const NOT_FOUND_MEMO_LIMIT = 10_000;
const notFoundMemo = new Map<string, HttpAnswer>();

/**
 * The 404 EN001 answer for an unknown code. It depends on the code and on whether HTML is
 * preferred only, so it is built once per (code, kind) and shared: a negative-cache hit costs
 * no more than a redirect (answers are never mutated).
 */
function notFoundAnswer(shortCode: string, facts: RequestFacts): HttpAnswer {
  const key = `${negotiate(facts.accept).prefersHtml ? 'h' : 'j'}${shortCode}`;
  let answer = notFoundMemo.get(key);
  if (answer === undefined) {
    answer = errorAnswer(linkNotFound(shortCode), 'not_found', shortCode, facts);
    if (notFoundMemo.size >= NOT_FOUND_MEMO_LIMIT) notFoundMemo.clear();
    notFoundMemo.set(key, answer);
  }
  return answer;
}

export function errorAnswer(error: AppError, outcome: Outcome, shortCode: string, facts: Pick<RequestFacts, 'accept'>): HttpAnswer {
  const status = `${error.status} ${STATUS_TEXT[error.status] ?? 'Error'}`;
  if (negotiate(facts.accept).prefersHtml) {
    const page = errorPage(error.status, error.code, error.message, shortCode);
    return { kind: 'answer', status, location: null, contentType: HTML, contentSecurityPolicy: page.csp, body: page.body, outcome, hit: null, rule: null };
  }
  const body = JSON.stringify({ errors: [error.toErrorObject()] });
  return { kind: 'answer', status, location: null, contentType: JSON_TYPE, contentSecurityPolicy: null, body, outcome, hit: null, rule: null };
}
