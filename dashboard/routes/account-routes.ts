// Invariant: "your account": a password change needs the current password and ends every other
// session (this one gets a new id); 2FA is set up by proving the password, then a code of the new
// secret, and answers the 10 recovery codes once; sessions are listed by a public handle only.
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { changePassword } from '../../shared/accounts/change-password.ts';
import { verifyPassword } from '../../shared/accounts/passwords.ts';
import { recoveryCode, sha256 } from '../../shared/accounts/secrets.ts';
import { endSessionByHandle, listSessions, loadSession, SESSION_ABSOLUTE_MS } from '../../shared/accounts/sessions.ts';
import { matchingStep, newTotpSecret, totpUri } from '../../shared/accounts/totp.ts';
import { disableTotp, enableTotp, getUser, setPendingTotpSecret, type User } from '../../shared/accounts/users.ts';
import { AppError } from '../../shared/errors/app-error.ts';
import { fieldProblem } from '../../shared/errors/domain-errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { setSessionCookie, type CookieSettings } from '../http/guard.ts';
import { route, sessionOf } from '../http/route.ts';
import { sessionView } from '../http/session-view.ts';
import type { FastifyRequest } from 'fastify';

const RECOVERY_CODES = 10;

export function registerAccountRoutes(app: FastifyInstance, deps: DashboardDeps, cookie: CookieSettings): void {
  async function me(request: FastifyRequest): Promise<User> {
    const user = await getUser(deps.sql, sessionOf(request).userId);
    if (!user) throw new AppError('AU001');
    return user;
  }
  async function provePassword(user: User, password: string): Promise<void> {
    if (!(await verifyPassword(user.passwordHash, password))) throw fieldProblem('password', 'is not your current password');
  }
  async function viewOf(request: FastifyRequest) {
    const s = await loadSession(deps.sql, request.cookies[cookie.name], deps.now());
    if (!s) throw new AppError('AU001');
    return sessionView(deps, s);
  }

  route(app, 'changePassword', 'user', async ({ body, request, reply }) => {
    const id = await changePassword(deps.sql, sessionOf(request), { ...body, userAgent: request.headers['user-agent'] ?? null });
    setSessionCookie(reply, cookie, id, SESSION_ABSOLUTE_MS / 1000);
    const fresh = await loadSession(deps.sql, id, deps.now());
    if (!fresh) throw new AppError('AU001');
    return sessionView(deps, fresh);
  });

  route(app, 'twoFactorStart', 'user', async ({ body, request }) => {
    const user = await me(request);
    await provePassword(user, body.password);
    if (user.totpSecret) throw fieldProblem('password', 'two-factor authentication is on already; turn it off first');
    const secret = newTotpSecret();
    await setPendingTotpSecret(deps.sql, user.id, secret);
    const uri = totpUri(secret, user.email);
    return { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 1 }) };
  });

  route(app, 'twoFactorConfirm', 'user', async ({ body, request }) => {
    const user = await me(request);
    if (!user.pendingTotpSecret) throw fieldProblem('code', 'start the set-up again');
    const step = matchingStep(user.pendingTotpSecret, body.code.trim(), deps.now());
    if (step === null) throw new AppError('AU003', 'Wrong code', { field: 'code' });
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    await enableTotp(deps.sql, user.id, user.pendingTotpSecret, step, codes.map(sha256));
    return { recoveryCodes: codes, session: await viewOf(request) };
  });

  route(app, 'twoFactorDisable', 'user', async ({ body, request }) => {
    const user = await me(request);
    await provePassword(user, body.password);
    await disableTotp(deps.sql, user.id);
    return viewOf(request);
  });

  route(app, 'accountSessions', 'user', async ({ request }) => {
    const s = sessionOf(request);
    return { sessions: await listSessions(deps.sql, s.userId, s.idHash) };
  });

  route(app, 'endSession', 'user', async ({ params, request }) => {
    const s = sessionOf(request);
    if (!(await endSessionByHandle(deps.sql, s.userId, params.id))) throw new AppError('EN001', 'Session not found');
    return { ok: true as const };
  });
}
