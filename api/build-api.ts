// Invariant: one Fastify instance carries the whole public API: JSON bodies up to 1 MiB, the
// envelope on every answer, no stack trace to a client. Health and the OpenAPI document need no
// key; every other route authorises first.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { ApiDeps } from './api-deps.ts';
import { installErrorHandling } from './error-handler.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { registerAnalyticsRoutes } from './routes/analytics-routes.ts';
import { registerLinkRoutes } from './routes/link-routes.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function buildApi(deps: ApiDeps): FastifyInstance {
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: deps.logLevel === 'silent' ? false : { level: deps.logLevel },
    logController: new LogController({ disableRequestLogging: deps.logLevel !== 'debug' && deps.logLevel !== 'trace' }),
    // Query strings like `query=shortCode=abc` keep everything after the first '='.
    routerOptions: { ignoreTrailingSlash: true },
  });
  installErrorHandling(app);
  app.get('/healthz', async () => ({ response: { status: 'ok' } }));
  let openApi: object | null = null;
  app.get('/link/external/v1/openapi.json', async () => {
    openApi ??= buildOpenApiDocument(deps.publicUrl());
    return openApi;
  });
  registerLinkRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  return app;
}
