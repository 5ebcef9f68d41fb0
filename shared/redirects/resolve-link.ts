// Invariant: resolve answers what the redirector would do for a visitor by calling the same
// decideRedirect with the same kinds of inputs (the stored link, its apps, the organisation, the
// click quota from the durable usage counters, the link's click counter, the visitor's facts at
// `at`), and records nothing: no event, no click, no quota, no counter. A code of another
// organisation is not_found. The visitor has no password cookie.
import { z } from 'zod';
import { findApps } from '../apps/mobile-app-repository.ts';
import type { Sql } from '../db/sql.ts';
import { AppErrorList } from '../errors/app-error.ts';
import { malformedBody } from '../errors/domain-errors.ts';
import { findLinkByCode } from '../links/link-repository.ts';
import { issuesToErrors } from '../links/link-request.ts';
import { instantMs } from '../links/link-rules.ts';
import type { Organization } from '../orgs/organization.ts';
import { isHardCapped } from '../orgs/plans.ts';
import { botCategoryOf } from './crawler-detection.ts';
import type { LinkClickCounter } from '../quotas/link-click-counter.ts';
import type { QuotaView } from '../quotas/quota-view.ts';
import { usageReport } from '../quotas/usage-report.ts';
import { billingPeriod } from '../quotas/billing-period.ts';
import { decideRedirect, quotaApplies, type DecisionInput } from './decide-redirect.ts';
import { KIND_OF, RESOLVE_KINDS } from './model/outcomes.ts';
import type { RequestFacts } from './request-facts.ts';

const text = (max: number) => z.string().max(max, `size must be between 0 and ${max}`).nullish();

export const resolveRequestSchema = z.object({
  shortCode: z.string({ error: 'must not be empty' }).min(1, 'must not be empty').max(64, 'size must be between 1 and 64'),
  visitor: z
    .object({
      userAgent: text(512),
      countryCode: z
        .string()
        .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
        .nullish(),
      acceptLanguage: text(512),
      query: text(4096).meta({ description: "The short link's query string, without '?'." }),
      at: z
        .string()
        .refine((s) => instantMs(s) !== null, 'must be an ISO 8601 instant with its zone, e.g. 2026-12-01T00:00:00Z')
        .nullish()
        .meta({ format: 'date-time', description: 'When the visit happens; default now.' }),
    })
    .nullish(),
});
export type ResolveRequest = z.infer<typeof resolveRequestSchema>;

export const resolveResponseSchema = z.strictObject({
  kind: z.enum(RESOLVE_KINDS),
  location: z.string().optional().meta({ description: 'Where the visitor is sent (or the framed page, for cloak), when there is one.' }),
  matchedRule: z.number().int().min(0).optional().meta({ description: 'Index of the rule that holds (0-based); absent when none does.' }),
});
export type ResolveResponse = z.infer<typeof resolveResponseSchema>;

export interface ResolveDeps {
  sql: Sql;
  shortLinkBase: string;
  /** The redirectors' per-link click counters; without them (a process that has none) maxClicks reads as not used up. */
  linkClicks?: LinkClickCounter;
  now(): number;
}

function parse(body: unknown): ResolveRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformedBody();
  const result = resolveRequestSchema.safeParse(body, { reportInput: true });
  if (!result.success) throw new AppErrorList(issuesToErrors(result.error.issues, ['shortCode']));
  return result.data;
}

async function quotaOf(sql: Sql, org: Organization, nowMs: number): Promise<QuotaView> {
  if (!isHardCapped(org.plan)) return { allowed: true };
  const usage = await usageReport(sql, org, nowMs);
  if (usage.clicks.used < usage.clicks.limit) return { allowed: true };
  return { allowed: false, currentClicks: usage.clicks.used, clicksLimit: usage.clicks.limit, periodEnd: billingPeriod(nowMs).periodEnd, plan: org.plan };
}

export async function resolveLink(deps: ResolveDeps, org: Organization, body: unknown): Promise<ResolveResponse> {
  const req = parse(body);
  const v = req.visitor ?? {};
  const nowMs = v.at ? (instantMs(v.at) as number) : deps.now();
  const found = await findLinkByCode(deps.sql, req.shortCode);
  const link = found !== null && found.orgId === org.id ? found : null;
  const route = { kind: 'visit', shortCode: req.shortCode } as const;
  const facts: RequestFacts = {
    method: 'GET',
    host: '',
    qr: false,
    accept: 'text/html',
    userAgent: v.userAgent ?? '',
    bot: botCategoryOf(v.userAgent ?? ''),
    referrer: null,
    secFetchDest: '',
    secFetchMode: '',
    acceptLanguage: v.acceptLanguage ?? '',
    doNotTrack: false,
    query: v.query ?? '',
    ip: null,
  };
  const input: DecisionInput = {
    route,
    link,
    hostDomain: null,
    linkDomain: null,
    org: link === null ? null : org,
    apps:
      link === null || link.deepLinks.length === 0
        ? new Map()
        : await findApps(
            deps.sql,
            org.id,
            link.deepLinks.map((d) => d.mobileAppId),
          ),
    quota: link !== null && quotaApplies({ route, link, hostDomain: null, org }, facts) ? await quotaOf(deps.sql, org, nowMs) : null,
    shortLinkBase: deps.shortLinkBase,
    country: v.countryCode ? v.countryCode.toUpperCase() : null,
    clicksExhausted: link?.maxClicks != null && deps.linkClicks !== undefined && (await deps.linkClicks.count(link.id)) >= link.maxClicks,
    passwordOk: false,
  };
  const decision = decideRedirect(input, facts, nowMs);
  if (decision.kind !== 'answer') return { kind: 'redirect' };
  const kind = KIND_OF[decision.outcome];
  let location = decision.location ?? undefined;
  if (kind === 'cloak' && link !== null) {
    location = (decision.rule !== null ? link.compiledRules.rules[decision.rule]?.destination : link.safeDestination) ?? undefined;
  }
  const out: ResolveResponse = { kind };
  if (location !== undefined) out.location = location;
  if (decision.rule !== null) out.matchedRule = decision.rule;
  return out;
}
