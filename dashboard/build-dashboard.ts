// Invariant: one Fastify instance serves the dashboard on its own origin: the built SPA (hashed
// assets cached for a year, index.html never cached, every non-API GET that accepts HTML answers
// index.html so deep links work) and its JSON routes under /api, guarded by http/guard.ts. Every
// answer carries a strict CSP (no inline script, no framing), nosniff and Referrer-Policy
// same-origin. Route files register themselves in ROUTE_MODULES below.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import { AppError, errorEnvelope } from '../shared/errors/app-error.ts';
import { answerClientError } from '../shared/errors/http-refusals.ts';
import { lingerOnServerClose } from '../shared/net/lingering-close.ts';
import { fastifyTrustProxy, NO_PROXY } from '../shared/net/trusted-proxies.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { installErrorHandler } from './http/error-handler.ts';
import { cookieSettings, installGuard, type CookieSettings } from './http/guard.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerAnalyticsRoutes } from './routes/analytics-routes.ts';
import { registerAuthRoutes } from './routes/auth-routes.ts';
import { registerDomainRoutes } from './routes/domain-routes.ts';
import { registerWebhookRoutes } from './routes/webhook-routes.ts';
import { registerIntegrationRoutes } from './routes/integration-routes.ts';
import { registerLinkRoutes } from './routes/link-routes.ts';
import { registerMemberRoutes } from './routes/member-routes.ts';
import { registerOrgRoutes } from './routes/org-routes.ts';
import { Readiness } from '../shared/runtime/readiness.ts';

const isFolder = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Each module adds its /api routes; a new page's server side is one more entry. */
const ROUTE_MODULES: readonly ((app: FastifyInstance, deps: DashboardDeps, cookie: CookieSettings) => void)[] = [
  registerAuthRoutes,
  registerAccountRoutes,
  registerLinkRoutes,
  registerAnalyticsRoutes,
  registerIntegrationRoutes,
  registerDomainRoutes,
  registerWebhookRoutes,
  registerMemberRoutes,
  registerOrgRoutes,
];

export async function buildDashboard(deps: DashboardDeps): Promise<FastifyInstance> {
  const https = deps.publicUrl.startsWith('https://');
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    trustProxy: fastifyTrustProxy(deps.trustProxy ?? NO_PROXY),
    http: { headersTimeout: 10_000 },
    requestTimeout: 30_000,
    // Refusals of node:http (408, 431, 413, 400) in the envelope, closed lingering, as the API's.
    clientErrorHandler: answerClientError,
  });
  lingerOnServerClose(app.server);
  installErrorHandler(app);
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000 } : false,
    crossOriginEmbedderPolicy: false,
  });
  await app.register(fastifyCookie);
  const cookie = cookieSettings(deps.publicUrl);
  installGuard(app, deps, cookie);
  app.get('/healthz', async () => ({ response: { status: 'ok' } }));
  const readiness = deps.readiness ?? Readiness.ready();
  app.get('/readyz', async (_req, reply) => {
    const { status, body } = await readiness.answer();
    return reply.code(status).type('application/json').send(body);
  });
  for (const register of ROUTE_MODULES) register(app, deps, cookie);

  await app.register(fastifyStatic, {
    root: deps.assetsDir,
    index: false,
    // A folder (/assets, /assets/) is not a page: it goes to the not-found handler below, instead of
    // the plugin's 403 reaching the error handler as a 500.
    allowedPath: (path, root) => !isFolder(join(String(root), path)),
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.includes(join('assets', '')) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const page = (reply: FastifyReply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
  // The static plugin refuses a directory (index: false) with 403: the root is the SPA's page.
  app.get('/', (_request, reply) => page(reply));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !path.startsWith('/api/') && !path.startsWith('/assets/');
    if (wantsPage) return page(reply);
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(errorEnvelope([new AppError('EN001', `No endpoint ${request.method} ${path}`).toErrorObject()]));
  });
  return app;
}
