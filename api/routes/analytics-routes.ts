// Invariant: analytics routes check key, scope and their own rate-limit bucket first (declared as
// config.auth, checked on request arrival), then the
// plan feature (export: ANALYTICS_EXPORT, 402 FE001), then read the query string into a typed
// request (analytics-params.ts) for the analytics read port (the purge's body goes to the purge
// port). Exports stream straight to the socket.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { aggregatesRequestOf, eventsRequestOf, exportRequestOf, type RawQuery } from '../../shared/analytics/reads/analytics-params.ts';
import { dependencyUnavailable } from '../../shared/errors/domain-errors.ts';
import { featureNotAvailable } from '../../shared/orgs/plan-errors.ts';
import { planHasFeature, suggestFeatureUpgrade } from '../../shared/orgs/plans.ts';
import type { ApiDeps } from '../api-deps.ts';
import { principalOf } from '../authorize.ts';

export function registerAnalyticsRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/link/external/v1/analytics/events', { config: { auth: { scope: 'analytics:read', bucket: 'analytics_events' } } }, async (request) => {
    const principal = principalOf(request);
    return { response: await deps.analytics.list(principal.org, eventsRequestOf(request.query as RawQuery)) };
  });

  app.get('/link/external/v1/analytics/aggregates', { config: { auth: { scope: 'analytics:read', bucket: 'analytics_events' } } }, async (request) => {
    const principal = principalOf(request);
    const req = aggregatesRequestOf(request.query as RawQuery);
    return { response: await (req.metric === 'visitors' ? deps.analytics.visitors(principal.org, req) : deps.analytics.aggregates(principal.org, req)) };
  });

  // Scope analytics:delete (never given to a key by default), bucket crud.
  app.post('/link/external/v1/analytics/events/purge', { config: { auth: { scope: 'analytics:delete', bucket: 'crud' } } }, async (request) => {
    if (!deps.analyticsPurge) throw dependencyUnavailable();
    return { response: await deps.analyticsPurge.purge(principalOf(request).org, request.body) };
  });

  app.get(
    '/link/external/v1/analytics/events/export',
    { config: { auth: { scope: 'analytics:export', bucket: 'analytics_export' } } },
    async (request, reply) => {
      const principal = principalOf(request);
      const { plan } = principal.org;
      if (!planHasFeature(plan, 'ANALYTICS_EXPORT')) {
        throw featureNotAvailable('ANALYTICS_EXPORT', plan, suggestFeatureUpgrade(plan, 'ANALYTICS_EXPORT'));
      }
      const file = await deps.analytics.export(principal.org, exportRequestOf(request.query as RawQuery));
      reply.header('content-type', file.contentType);
      reply.header('content-disposition', `attachment; filename="${file.filename}"`);
      return reply.send(Readable.from(file.body));
    },
  );
}
