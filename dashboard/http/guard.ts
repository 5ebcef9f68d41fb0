// Invariant: every request to /api passes this guard before its body is read:
// 1. a state-changing method (anything but GET/HEAD) must carry `Origin` equal to the dashboard's
//    own origin (403 SML010 otherwise), before sign-in too;
// 2. the session cookie is resolved (idle and absolute timeouts applied);
// 3. the route's access level is checked (401 AU001 without a fitting session, 403 SML010 when the
//    role lacks the permission, 403 AU005 while the organisation requires 2FA the user lacks);
// 4. a state-changing request of a session carries the session's CSRF token in `x-csrf-token`;
// 5. a signed-in user's writes spend their own bucket (120 a minute), not the organisation's.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { roleMay } from '../../shared/accounts/roles.ts';
import { loadSession } from '../../shared/accounts/sessions.ts';
import { lacksRequiredTwoFactor } from '../../shared/accounts/two-factor-rule.ts';
import { AppError } from '../../shared/errors/app-error.ts';
import { accessDenied, rateLimited } from '../../shared/errors/domain-errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import type { Access } from './route.ts';

export const WRITES_PER_MINUTE = 120;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CookieSettings {
  name: string;
  secure: boolean;
}

/** `__Host-` prefixed (Secure, Path=/, no Domain) when the dashboard is served over https. */
export function cookieSettings(publicUrl: string): CookieSettings {
  const secure = publicUrl.startsWith('https://');
  return { name: secure ? '__Host-shortlink_session' : 'shortlink_session', secure };
}

export function setSessionCookie(reply: FastifyReply, cookie: CookieSettings, value: string, maxAgeSeconds: number): void {
  reply.setCookie(cookie.name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure, maxAge: maxAgeSeconds });
}

export function clearSessionCookie(reply: FastifyReply, cookie: CookieSettings): void {
  reply.clearCookie(cookie.name, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure });
}

function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Routes a user who still has to set up 2FA may use (to set it up, or to leave). */
const TWO_FACTOR_EXEMPT: ReadonlySet<Access> = new Set(['public', 'second_factor', 'user']);

export function installGuard(app: FastifyInstance, deps: DashboardDeps, cookie: CookieSettings): void {
  // Read per request: with DASHBOARD_PORT=0 the origin is known only once the server listens.
  const originOf = (url: string): string => new URL(url).origin;
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = request.routeOptions.config.access;
    if (access === undefined) return;
    const unsafe = !SAFE.has(request.method);
    if (unsafe && request.headers.origin !== originOf(deps.publicUrl)) throw accessDenied();
    const session = await loadSession(deps.sql, request.cookies[cookie.name], deps.now());
    request.session = session;
    if (access === 'public') return;
    if (session === null) throw new AppError('AU001');
    if (access === 'second_factor' ? session.stage !== 'second_factor' : session.stage !== 'full') throw new AppError('AU001');
    if (unsafe) {
      const header = request.headers['x-csrf-token'];
      if (!sameToken(Array.isArray(header) ? header[0] : header, session.csrfToken)) throw accessDenied();
    }
    if (!TWO_FACTOR_EXEMPT.has(access)) {
      if (session.orgId === null || session.role === null || !roleMay(session.role, access as Exclude<Access, 'public' | 'second_factor' | 'user'>)) {
        throw accessDenied();
      }
      if (await lacksRequiredTwoFactor(deps.sql, session)) throw new AppError('AU005');
    }
    if (unsafe) {
      const decision = await deps.rateLimiter.consume(`dashboard:${session.userId}`, WRITES_PER_MINUTE);
      if (!decision.allowed) throw rateLimited('dashboard_writes', WRITES_PER_MINUTE, decision.retryAfterSeconds);
    }
  });
}
