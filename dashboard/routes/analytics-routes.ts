// Invariant: the dashboard's analytics reads are the public API's aggregates over the same store
// (one query-string parser, the same errors), for the session's organisation: the page's series,
// the same series for the comparison period of its plan (as many days, just before), its
// distinct visitors, and every
// dimension's top values, answered together, each a typed request derived from the series'. The export download is the API's export, refused with 402 FE001
// unless the plan has ANALYTICS_EXPORT. Anyone who may see the organisation ('read') may read.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_AGGREGATE_LIMIT, DIMENSION_NAMES, type Dimension } from '../../shared/analytics/model/dimensions.ts';
import type { AggregateResponse } from '../../shared/analytics/model/aggregate-response.ts';
import { aggregatesRequestOf, exportRequestOf } from '../../shared/analytics/reads/analytics-params.ts';
import { getOrganization } from '../../shared/orgs/org-repository.ts';
import { featureNotAvailable } from '../../shared/orgs/plan-errors.ts';
import { planHasFeature, suggestFeatureUpgrade } from '../../shared/orgs/plans.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { download, orgIdOf, route } from '../http/route.ts';

export function registerAnalyticsRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  route(app, 'analytics', 'read', async ({ request, query }) => {
    const org = await getOrganization(deps.sql, orgIdOf(request));
    const reads = deps.analytics;
    const { groupBy: _groupBy, limit: _limit, ...filters } = query;
    const series = aggregatesRequestOf({ ...filters, groupBy: 'time' });
    const { previous } = reads.planAggregate(org, series);
    const [seriesAnswer, previousAnswer, visitors, ...tops] = await Promise.all([
      reads.aggregates(org, series),
      reads.aggregates(org, { ...series, ...previous }),
      reads.visitors(org, { ...series, metric: 'visitors' }),
      ...DIMENSION_NAMES.map((d) => reads.aggregates(org, { ...series, groupBy: d, interval: null, limit: DEFAULT_AGGREGATE_LIMIT })),
    ]);
    return {
      series: seriesAnswer,
      previous: previousAnswer,
      visitors,
      top: Object.fromEntries(DIMENSION_NAMES.map((d, i) => [d, tops[i] ?? seriesAnswer])) as Record<Dimension, AggregateResponse>,
      exportAllowed: planHasFeature(org.plan, 'ANALYTICS_EXPORT'),
    };
  });

  download(app, 'analyticsExport', 'read', async ({ query, request, reply }) => {
    const org = await getOrganization(deps.sql, orgIdOf(request));
    if (!planHasFeature(org.plan, 'ANALYTICS_EXPORT'))
      throw featureNotAvailable('ANALYTICS_EXPORT', org.plan, suggestFeatureUpgrade(org.plan, 'ANALYTICS_EXPORT'));
    const file = await deps.analytics.export(org, exportRequestOf(query));
    reply.header('content-type', file.contentType);
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return reply.send(Readable.from(file.body));
  });
}
