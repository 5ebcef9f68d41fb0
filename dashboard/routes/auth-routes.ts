// Invariant: signing in, the 2FA step, invitations, sign-up and sign-out. A sign-in is throttled
// (sign-in-throttle.ts) and answers the same AU002 whether the e-mail is unknown or the password
// wrong; each step that raises what a session may do issues a new session id (rotation).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptInvite, findInvite, inviteExpired } from '../../shared/accounts/invites.ts';
import { membershipsOf } from '../../shared/accounts/memberships.ts';
import { verifyPassword } from '../../shared/accounts/passwords.ts';
import { normalizeRecoveryCode, sha256 } from '../../shared/accounts/secrets.ts';
import {
  createSession,
  endSession,
  endUserSessions,
  loadSession,
  SESSION_ABSOLUTE_MS,
  setSessionOrg,
  type SessionStage,
} from '../../shared/accounts/sessions.ts';
import { assertSignInAllowed, recordSignIn } from '../../shared/accounts/sign-in-throttle.ts';
import { acceptTotp } from '../../shared/accounts/totp.ts';
import { signUp } from '../../shared/accounts/sign-up.ts';
import { findUserByEmail, getUser, redeemRecoveryCode, type User } from '../../shared/accounts/users.ts';
import { AppError } from '../../shared/errors/app-error.ts';
import { accessDenied } from '../../shared/errors/domain-errors.ts';
import type { SessionView } from '../contract/schemas.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { clearSessionCookie, setSessionCookie, type CookieSettings } from '../http/guard.ts';
import { route, sessionOf } from '../http/route.ts';
import { sessionView } from '../http/session-view.ts';
import type { FastifyInstance } from 'fastify';

export function registerAuthRoutes(app: FastifyInstance, deps: DashboardDeps, cookie: CookieSettings): void {
  /** Issues a new session (deleting the request's old one) and answers its view. */
  async function begin(request: FastifyRequest, reply: FastifyReply, user: User, stage: SessionStage, orgId?: string): Promise<SessionView> {
    const orgs = await membershipsOf(deps.sql, user.id);
    const prior = request.session?.userId === user.id ? request.session.orgId : null;
    const chosen = orgId ?? (prior !== null && orgs.some((o) => o.orgId === prior) ? prior : (orgs[0]?.orgId ?? null));
    const created = await createSession(deps.sql, {
      userId: user.id,
      orgId: chosen,
      stage,
      userAgent: request.headers['user-agent'] ?? null,
      replacesIdHash: request.session?.idHash ?? null,
    });
    setSessionCookie(reply, cookie, created.id, SESSION_ABSOLUTE_MS / 1000);
    const session = await loadSession(deps.sql, created.id, deps.now());
    if (!session) throw new Error('a session just created was not found');
    return sessionView(deps, session);
  }

  route(app, 'session', 'public', async ({ request }) => {
    if (request.session === null) throw new AppError('AU001');
    return sessionView(deps, request.session);
  });

  route(app, 'signIn', 'public', async ({ body, request, reply }) => {
    await assertSignInAllowed(deps.sql, body.email, request.ip);
    const user = await findUserByEmail(deps.sql, body.email);
    const ok = await verifyPassword(user?.passwordHash ?? null, body.password);
    await recordSignIn(deps.sql, body.email, request.ip, ok && user !== null);
    if (!ok || user === null) throw new AppError('AU002');
    return begin(request, reply, user, user.totpSecret ? 'second_factor' : 'full');
  });

  route(app, 'secondFactor', 'second_factor', async ({ body, request, reply }) => {
    const s = sessionOf(request);
    const user = await getUser(deps.sql, s.userId);
    if (!user?.totpSecret) throw new AppError('AU001');
    const code = body.code.trim();
    const accepted = /^\d{6}$/.test(code)
      ? await acceptTotp(deps.sql, user.id, user.totpSecret, code, deps.now())
      : await redeemRecoveryCode(deps.sql, user.id, sha256(normalizeRecoveryCode(code)));
    if (!accepted) throw new AppError('AU003', 'Wrong code', { field: 'code' });
    return begin(request, reply, user, 'full');
  });

  route(app, 'signUp', 'public', async ({ body, request, reply }) => {
    if (deps.signUp !== 'open') throw accessDenied();
    const { user, orgId } = await signUp(deps.sql, body);
    return begin(request, reply, user, 'full', orgId);
  });

  route(app, 'inviteLookup', 'public', async ({ body }) => {
    const invite = await findInvite(deps.sql, body.token);
    if (!invite) throw inviteExpired();
    const existing = invite.email === null ? null : await findUserByEmail(deps.sql, invite.email);
    return { orgName: invite.orgName, email: invite.email, role: invite.role, existingUser: existing !== null };
  });

  route(app, 'inviteAccept', 'public', async ({ body, request, reply }) => {
    const { user, orgId } = await acceptInvite(deps.sql, body.token, { email: body.email, password: body.password });
    // Following an invite signs the new user in; an account with 2FA still gives its code.
    return begin(request, reply, user, user.totpSecret ? 'second_factor' : 'full', orgId);
  });

  route(app, 'signOut', 'user', async ({ request, reply }) => {
    await endSession(deps.sql, sessionOf(request).idHash);
    clearSessionCookie(reply, cookie);
    return { ok: true as const };
  });

  route(app, 'signOutEverywhere', 'user', async ({ request, reply }) => {
    await endUserSessions(deps.sql, sessionOf(request).userId);
    clearSessionCookie(reply, cookie);
    return { ok: true as const };
  });

  route(app, 'switchOrg', 'user', async ({ body, request }) => {
    const s = sessionOf(request);
    const orgs = await membershipsOf(deps.sql, s.userId);
    if (!orgs.some((o) => o.orgId === body.orgId)) throw accessDenied();
    await setSessionOrg(deps.sql, s.idHash, body.orgId);
    const updated = await loadSession(deps.sql, request.cookies[cookie.name], deps.now());
    if (!updated) throw new AppError('AU001');
    return sessionView(deps, updated);
  });
}
