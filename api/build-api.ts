// Invariant: one Fastify instance carries the whole public API: JSON bodies up to 1 MiB, the
// envelope on every answer, no stack trace to a client. Health and the OpenAPI document need no
// key; every other route is authorised when its request arrives, before its body is read, and
// no NUL character in a query or body reaches a route. A client that has not sent its headers
// within HEADERS_TIMEOUT_MS, or its whole request within REQUEST_TIMEOUT_MS, is answered 408 and
// disconnected; every answer that closes its connection closes it lingering (shared/errors/http-refusals.ts).
// Each request has a random id: in every log line about it (reqId) and in its X-Request-Id header.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { KeyAuthenticator } from '../shared/keys/key-authenticator.ts';
import { lingerOnServerClose } from '../shared/net/lingering-close.ts';
import { fastifyTrustProxy, NO_PROXY } from '../shared/net/trusted-proxies.ts';
import { Readiness } from '../shared/runtime/readiness.ts';
import type { ApiDeps } from './api-deps.ts';
import { installAuthorization } from './authorize.ts';
import { answerClientError } from '../shared/errors/http-refusals.ts';
import { installErrorHandling } from './error-handler.ts';
import { installNulGuard } from './nul-guard.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { registerAnalyticsRoutes } from './routes/analytics-routes.ts';
import { registerLinkRoutes } from './routes/link-routes.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Headers of a request must be complete this long after its first byte (slowloris). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, body included (1 MiB at most), must arrive within this. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** A socket with no traffic either way for this long is closed (a streaming export writes). */
export const IDLE_SOCKET_TIMEOUT_MS = 60_000;
/** An idle keep-alive connection stays open this long: above the usual 60 s of load balancers. */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** How often node:http checks the headers and request deadlines (its default is 30 s). */
const DEADLINE_CHECK_INTERVAL_MS = 1_000;

export function buildApi(deps: ApiDeps): FastifyInstance {
  const level = deps.logger?.level ?? 'silent';
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: level !== 'debug' && level !== 'trace' }),
    // Every request's log lines carry this id (reqId); the client gets it as X-Request-Id.
    genReqId: () => randomUUID(),
    // Query strings like `query=shortCode=abc` keep everything after the first '='.
    routerOptions: { ignoreTrailingSlash: true },
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS },
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionTimeout: IDLE_SOCKET_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // The same TRUST_PROXY the redirector uses: request.ip is the nearest untrusted address.
    trustProxy: fastifyTrustProxy(deps.trustProxy ?? NO_PROXY),
    // Refusals of node:http (408, 431, 413, 400) in the envelope, closed lingering.
    clientErrorHandler: answerClientError,
  });
  // An answer that closes its connection (a body left unread) lets the client read it first.
  lingerOnServerClose(app.server);
  installErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  const keys = new KeyAuthenticator(deps.keyLookup, deps.now);
  app.addHook('onClose', async () => keys.close());
  installAuthorization(app, deps, keys);
  installNulGuard(app);
  app.get('/healthz', async () => ({ response: { status: 'ok' } }));
  const readiness = deps.readiness ?? Readiness.ready();
  app.get('/readyz', async (_req, reply) => {
    const { status, body } = await readiness.answer();
    return reply.code(status).type('application/json').send(body);
  });
  let openApi: object | null = null;
  app.get('/link/external/v1/openapi.json', async () => {
    openApi ??= buildOpenApiDocument(deps.publicUrl());
    return openApi;
  });
  registerLinkRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  return app;
}
