// Invariant: every /link/external/v1 route that declares `config.auth` is authorised in the
// onRequest hook, before a byte of its body is read, in this order: key (401 SML003) →
// organisation and scope (403 SML010) → the organisation's token bucket for the route's
// rate-limit scope (429 SML005). Only then is the body parsed and looked at. Keys are checked
// through the KeyAuthenticator, which remembers unknown keys briefly.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessDenied, rateLimited, type ApiRateLimitScope } from '../shared/errors/domain-errors.ts';
import type { Scope } from '../shared/keys/model/scopes.ts';
import type { KeyAuthenticator } from '../shared/keys/key-authenticator.ts';
import type { Principal } from '../shared/keys/principal.ts';
import type { ApiDeps } from './api-deps.ts';

/** What a route needs: a key scope and the rate-limit bucket it spends. */
export interface RouteAuth {
  scope: Scope;
  bucket: ApiRateLimitScope;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const LIMIT_OF: Record<ApiRateLimitScope, 'crudPerMin' | 'analyticsPerMin' | 'exportPerMin'> = {
  crud: 'crudPerMin',
  analytics_events: 'analyticsPerMin',
  analytics_export: 'exportPerMin',
};

export async function authorize(deps: ApiDeps, keys: KeyAuthenticator, request: FastifyRequest, scope: Scope, bucket: ApiRateLimitScope): Promise<Principal> {
  const header = request.headers['x-api-key'];
  const principal = await keys.authenticate(Array.isArray(header) ? header[0] : header);
  if (principal.org.suspended || !principal.scopes.includes(scope)) throw accessDenied();
  const limitPerMin = principal.org.limits[LIMIT_OF[bucket]];
  const decision = await deps.rateLimiter.consume(`${principal.org.id}:${bucket}`, limitPerMin);
  if (!decision.allowed) {
    deps.telemetry?.rateLimitRejected(bucket);
    throw rateLimited(bucket, limitPerMin, decision.retryAfterSeconds);
  }
  return principal;
}

const hasBody = (request: FastifyRequest): boolean => request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';

/** Authorises every route with `config.auth` when its request arrives (before body parsing). */
export function installAuthorization(app: FastifyInstance, deps: ApiDeps, keys: KeyAuthenticator): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (!auth) return;
    try {
      request.principal = await authorize(deps, keys, request, auth.scope, auth.bucket);
    } catch (err) {
      // The body was never read: close the connection after the answer instead of draining it.
      if (hasBody(request)) reply.header('connection', 'close');
      throw err;
    }
  });
}

/** The principal the onRequest hook established; only for routes that declare `config.auth`. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error(`route ${request.routeOptions.url ?? ''} has no config.auth`);
  return request.principal;
}
