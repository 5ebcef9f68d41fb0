// Invariant: the dashboard's analytics reads are the public API's aggregates over the same store
// (one query-string parser, the same errors), for the session's organisation: the page's series,
// the same series for the period just before (for the comparison), and every dimension's top
// values, answered together. The export download is the API's export, refused with 402 FE001
// unless the plan has ANALYTICS_EXPORT. Anyone who may see the organisation ('read') may read.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { DIMENSION_NAMES, type Dimension } from '../../shared/analytics/model/dimensions.ts';
import type { AggregateResponse } from '../../shared/analytics/model/aggregate-response.ts';
import { parseCalendarDate } from '../../shared/analytics/reads/local-day-range.ts';
import { getOrganization } from '../../shared/orgs/org-repository.ts';
import { featureNotAvailable } from '../../shared/orgs/plan-errors.ts';
import { planHasFeature, suggestFeatureUpgrade } from '../../shared/orgs/plans.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { download, orgIdOf, route } from '../http/route.ts';

const DAY_MS = 86_400_000;
const dayText = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The range of the same length that ends the day before `from` (both valid dates). */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const a = parseCalendarDate(from) ?? 0;
  const b = parseCalendarDate(to) ?? 0;
  return { from: dayText(a - (b - a + 1)), to: dayText(a - 1) };
}

export function registerAnalyticsRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  route(app, 'analytics', 'read', async ({ request, query }) => {
    const org = await getOrganization(deps.sql, orgIdOf(request));
    const reads = deps.analytics;
    const q: Record<string, string | undefined> = { ...query };
    delete q.groupBy;
    delete q.limit;
    const series = await reads.aggregates(org, { ...q, groupBy: 'time' });
    const [previous, ...tops] = await Promise.all([
      reads.aggregates(org, { ...q, ...previousPeriod(series.from, series.to), groupBy: 'time', interval: series.interval }),
      ...DIMENSION_NAMES.map((d) => {
        const { interval: _interval, ...rest } = q;
        return reads.aggregates(org, { ...rest, groupBy: d, limit: '10' });
      }),
    ]);
    return {
      series,
      previous,
      top: Object.fromEntries(DIMENSION_NAMES.map((d, i) => [d, tops[i] ?? series])) as Record<Dimension, AggregateResponse>,
      exportAllowed: planHasFeature(org.plan, 'ANALYTICS_EXPORT'),
    };
  });

  download(app, 'analyticsExport', 'read', async ({ query, request, reply }) => {
    const org = await getOrganization(deps.sql, orgIdOf(request));
    if (!planHasFeature(org.plan, 'ANALYTICS_EXPORT'))
      throw featureNotAvailable('ANALYTICS_EXPORT', org.plan, suggestFeatureUpgrade(org.plan, 'ANALYTICS_EXPORT'));
    const file = await deps.analytics.export(org, query);
    reply.header('content-type', file.contentType);
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return reply.send(Readable.from(file.body));
  });
}
