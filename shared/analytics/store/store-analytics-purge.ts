// Invariant: the API reaches the purge only through this port. A purge request is a JSON body
// {from, to, shortCode?, dryRun?}: from/to are checked as Browse's (the organisation's calendar
// days, at most 186), type mismatches are VE001 naming the member and a missing from/to SML002.
// An unreachable store is 503 SML006 with Retry-After, never a 500.
import { z } from 'zod';
import { AppError, AppErrorList } from '../../errors/app-error.ts';
import { dependencyUnavailable, malformedBody } from '../../errors/domain-errors.ts';
import { issuesToErrors } from '../../links/link-request.ts';
import { isDependencyUnreachable } from '../../net/dependency-unreachable.ts';
import type { LinkEventsPurge } from '../../links/delete-link.ts';
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

export interface AnalyticsPurge extends LinkEventsPurge {
  /** POST /analytics/events/purge: the `response` payload. */
  purge(org: Organization, body: unknown): Promise<PurgeResponse>;
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
      if (!parsed.success) throw new AppErrorList(issuesToErrors(parsed.error.issues, ['from', 'to']));
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
