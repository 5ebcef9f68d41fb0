// Invariant: every /link/external/v1 request except the OpenAPI document passes, in this order:
// key (401 SML003) → organisation and scope (403 SML010) → the organisation's token bucket for
// the route's rate-limit scope (429 SML005). Only then is the body looked at.
import type { FastifyRequest } from 'fastify';
import { accessDenied, rateLimited, type RateLimitScope } from '../shared/errors/domain-errors.ts';
import type { Scope } from '../shared/keys/api-key.ts';
import { authenticate, type Principal } from '../shared/keys/key-repository.ts';
import type { ApiDeps } from './api-deps.ts';

const LIMIT_OF: Record<RateLimitScope, 'crudPerMin' | 'analyticsPerMin' | 'exportPerMin'> = {
  crud: 'crudPerMin',
  analytics_events: 'analyticsPerMin',
  analytics_export: 'exportPerMin',
};

export async function authorize(deps: ApiDeps, request: FastifyRequest, scope: Scope, bucket: RateLimitScope): Promise<Principal> {
  const header = request.headers['x-api-key'];
  const principal = await authenticate(deps.sql, Array.isArray(header) ? header[0] : header);
  if (principal.org.suspended || !principal.scopes.includes(scope)) throw accessDenied();
  const limitPerMin = principal.org.limits[LIMIT_OF[bucket]];
  const decision = await deps.rateLimiter.consume(`${principal.org.id}:${bucket}`, limitPerMin);
  if (!decision.allowed) throw rateLimited(bucket, limitPerMin, decision.retryAfterSeconds);
  return principal;
}
