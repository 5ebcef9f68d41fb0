// Invariant: the API reaches the purge only through this port. A purge request is a JSON body
// {from, to, shortCode?, dryRun?}: from/to are checked as Browse's (the organisation's calendar
// days, at most 186), type mismatches are VE001 naming the member and a missing from/to SML002.
// An unreachable store is 503 SML006 with Retry-After, never a 500.
import { z } from 'zod';
import { AppError, AppErrorList } from '../../errors/app-error.ts';
import { constraintViolated, dependencyUnavailable, malformedBody, validationFailed } from '../../errors/domain-errors.ts';
import { isDependencyUnreachable } from '../../net/dependency-unreachable.ts';
import type { Organization } from '../../orgs/organization.ts';
import { parseDateRange } from '../reads/analytics-params.ts';
import { localDayRangeMicros } from '../reads/local-day-range.ts';
import type { AnalyticsStore } from './analytics-store.ts';
import { purgeEvents } from './event-purge.ts';

const day = (what: string) =>
  z
    .string({ error: 'must not be empty' })
    .min(1, 'must not be empty')
    .meta({ format: 'date', description: `${what} calendar day (YYYY-MM-DD) in the organisation's time zone, as Browse.` });

export const purgeRequestSchema = z.object({
  from: day('First'),
  to: day('Last (inclusive)'),
  shortCode: z.string().min(1, 'must not be empty').nullish().meta({ description: "Only this link's events; default every link's." }),
  dryRun: z.boolean().nullish().meta({ description: 'Only count what would be removed. Default false.' }),
});

export const purgeResponseSchema = z.strictObject({
  events: z.number().int().min(0).meta({ description: 'Events removed (of every type), or with dryRun the events a purge would remove.' }),
});
export type PurgeResponse = z.infer<typeof purgeResponseSchema>;

export interface AnalyticsPurge {
  /** POST /analytics/events/purge: the `response` payload. */
  purge(org: Organization, body: unknown): Promise<PurgeResponse>;
  /** Throws 503 SML006 while a purge cannot run (the rollup's backfill is not done). */
  assertReady(): void;
  /** Every event of the organisation's link `shortCode`, all time (a link deleted with purgeAnalytics); returns how many. */
  purgeLink(orgId: string, shortCode: string): Promise<number>;
}

/**
 * The body's zod issues as the service's errors, as the link requests classify them: a missing
 * from/to and constraint failures are SML002, a member of the wrong type VE001; SML002 wins.
 */
function issuesToErrors(issues: readonly z.core.$ZodIssue[]): AppError[] {
  const constraint: AppError[] = [];
  const other: AppError[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    const input = (issue as { input?: unknown }).input;
    if (issue.code === 'invalid_type' && (input === undefined || input === null)) constraint.push(constraintViolated(`${path}: must not be empty`));
    else if (issue.code === 'invalid_type') other.push(validationFailed(`${path}: must be of type ${issue.expected}`));
    else constraint.push(constraintViolated(`${path}: ${issue.message}`));
  }
  return constraint.length > 0 ? constraint : other;
}

async function storing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw isDependencyUnreachable(err) ? dependencyUnavailable() : err;
  }
}

export function storeAnalyticsPurge(store: AnalyticsStore): AnalyticsPurge {
  return {
    purge: async (org, body) => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformedBody();
      const parsed = purgeRequestSchema.safeParse(body, { reportInput: true });
      if (!parsed.success) throw new AppErrorList(issuesToErrors(parsed.error.issues));
      const req = parsed.data;
      const range = parseDateRange(req.from, req.to);
      if (range instanceof AppError) throw range;
      const target = { orgId: org.id, range: localDayRangeMicros(range.from, range.to, org.timezone), shortCode: req.shortCode ?? null };
      return { events: await storing(() => purgeEvents(store, target, { dryRun: req.dryRun === true })) };
    },
    assertReady: () => {
      if (!store.rollupReady) throw dependencyUnavailable(5);
    },
    purgeLink: (orgId, shortCode) => storing(() => purgeEvents(store, { orgId, range: null, shortCode }, { dryRun: false })),
  };
}
