// Invariant: the dashboard's sign-in and session rules hold over real HTTP against real Postgres:
// Origin and CSRF checks, cookie flags, the lockout, TOTP single use, sessions ended by a password
// change, and no secret (password hash, TOTP secret after set-up) in any response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../shared/accounts/totp.ts';
import { type DashboardApp, startDashboardApp } from '../support/dashboard-app.ts';
import { headerFlood, rawRequest } from '../support/refused-requests.ts';

const PASSWORD = 'correct horse battery';

let d: DashboardApp;
let orgId: string;
beforeAll(async () => {
  d = await startDashboardApp();
  orgId = await d.org('BUSINESS');
});
afterAll(async () => d?.close());

async function newUser(email: string, role: 'owner' | 'admin' | 'member' | 'viewer' = 'owner') {
  const c = d.client();
  const r = await c.accept(await d.invite(orgId, email, role), PASSWORD);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return c;
}

describe('dashboard sessions and requests', () => {
  it('the root (the URL npm start prints) and deep links answer the SPA page; unknown API paths and the assets folder 404 in the envelope', async () => {
    for (const path of ['/', '/links', '/webhooks?x=1']) {
      const r = await fetch(`${d.base}${path}`);
      expect([path, r.status, r.headers.get('content-type'), r.headers.get('cache-control')]).toEqual([path, 200, 'text/html; charset=utf-8', 'no-cache']);
      expect(await r.text()).toMatch(/^<!doctype html>/i);
    }
    const missing = await fetch(`${d.base}/api/nope`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).errors[0].code).toBe('EN001');
    for (const folder of ['/assets/', '/assets/?x=1']) {
      const r = await fetch(`${d.base}${folder}`); // a folder of the build: 404 in the envelope (was the plugin's 403 as a 500)
      expect([folder, r.status, (await r.json()).errors[0].code]).toEqual([folder, 404, 'EN001']);
    }
  });

  it('/healthz and /readyz answer JSON on the dashboard’s own port, never the SPA page', async () => {
    for (const [path, body] of [
      ['/healthz', { response: { status: 'ok' } }],
      ['/readyz', { response: { status: 'ready' } }],
    ] as const) {
      const r = await fetch(`${d.base}${path}`);
      expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, 'application/json; charset=utf-8']);
      expect(await r.json()).toEqual(body);
    }
  });

  it('requests node:http refuses are answered in the envelope and read, not reset (431, 400)', async () => {
    const port = Number(new URL(d.base).port);
    const { failures, bodies } = await headerFlood(port, { tries: 300, concurrency: 8, size: 100 * 1024, expected: 431 });
    expect(failures.map((f) => `${f.status} ${f.error}`)).toEqual([]);
    expect([...bodies]).toEqual([JSON.stringify({ errors: [{ code: 'VE001', message: 'Request header fields too large' }] })]);
    const malformed = await rawRequest(port, 'GET /api/session HTTP/1.1\r\nHost: d\r\nNot a header line\r\n\r\n', Buffer.alloc(200_000, 'j'));
    expect([malformed.status, malformed.error, malformed.body]).toEqual([
      400,
      null,
      JSON.stringify({ errors: [{ code: 'VE001', message: 'Malformed HTTP request' }] }),
    ]);
  });

  it('the session cookie is HttpOnly, SameSite=Lax, Path=/, not __Host- over http', async () => {
    const c = d.client();
    const r = await c.accept(await d.invite(orgId, 'cookie@example.com', 'member'), PASSWORD);
    const set = r.headers.getSetCookie().join('\n');
    expect(set).toMatch(/^shortlink_session=[A-Za-z0-9_-]{40,};/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/Secure/);
  });

  it('under an https public URL the cookie is __Host- prefixed and Secure', async () => {
    const https = await startDashboardApp({ publicUrl: 'https://dash.example.test' });
    try {
      const org = await https.org('PRO');
      const c = https.client();
      const r = await c.accept(await https.invite(org, 'tls@example.com', 'owner'), PASSWORD);
      expect(r.status).toBe(200);
      const set = r.headers.getSetCookie().join('\n');
      expect(set).toMatch(/^__Host-shortlink_session=/);
      expect(set).toMatch(/Secure/);
      expect(set).toMatch(/Path=\//);
      expect(set).not.toMatch(/Domain=/i);
      const page = await fetch(`${https.base}/links`);
      expect(page.headers.get('strict-transport-security')).toMatch(/max-age=/);
    } finally {
      await https.close();
    }
  });

  it('a cross-origin POST is refused (403), before sign-in too', async () => {
    const c = await newUser('origin@example.com');
    for (const origin of ['https://evil.example', 'null', null]) {
      const r = await c.post('/api/session/sign-out-everywhere', {}, { origin });
      expect(r.status, String(origin)).toBe(403);
      expect(r.body.errors?.[0]?.code).toBe('SML010');
    }
    expect((await c.get('/api/session')).status).toBe(200);
    const anonymous = d.client();
    expect((await anonymous.post('/api/session', { email: 'x@example.com', password: 'y' }, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('a state-changing request without the session CSRF token is refused (403)', async () => {
    const c = await newUser('csrf@example.com');
    expect((await c.post('/api/session/sign-out-everywhere', {}, { csrf: null })).status).toBe(403);
    expect((await c.post('/api/session/sign-out-everywhere', {}, { csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await c.get('/api/session')).status).toBe(200);
    expect((await c.post('/api/session/sign-out-everywhere')).status).toBe(200);
    expect((await c.get('/api/session')).status).toBe(401);
  });

  it('pages answer with a strict CSP, nosniff and Referrer-Policy same-origin', async () => {
    const r = await fetch(`${d.base}/account`);
    expect(r.status).toBe(200);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('same-origin');
    expect(await r.text()).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('sign-in locks an address after 10 failures for 15 min, the same way whether the account exists', async () => {
    await newUser('locked@example.com');
    for (const email of ['locked@example.com', 'nobody-here@example.com']) {
      const c = d.client();
      for (let i = 0; i < 10; i++) {
        const r = await c.signIn(email, `wrong password ${i}`);
        expect(r.status).toBe(401);
        expect(r.body.errors?.[0]).toMatchObject({ code: 'AU002', message: 'Wrong e-mail or password' });
      }
      const refused = await c.signIn(email, PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.body.errors?.[0]).toMatchObject({ code: 'SML005', message: 'Too many failed sign-ins; try again in 15 minutes' });
    }
    // Another account is not affected.
    await newUser('unlocked@example.com');
    expect((await d.client().signIn('unlocked@example.com', PASSWORD)).status).toBe(200);
  });

  it('a TOTP code is accepted once', async () => {
    const c = await newUser('totp@example.com');
    const start = await c.post<{ secret: string }>('/api/account/2fa/start', { password: PASSWORD });
    expect(start.status).toBe(200);
    const secret = start.body.secret;
    const now = Date.now();
    const confirm = await c.post<{ recoveryCodes: string[] }>('/api/account/2fa/confirm', { code: totpCode(secret, now) });
    expect(confirm.status).toBe(200);
    expect(confirm.body.recoveryCodes).toHaveLength(10);
    // The code that turned 2FA on cannot sign in again; the next step's code can, once.
    const b = d.client();
    expect((await b.signIn('totp@example.com', PASSWORD)).body).toMatchObject({ stage: 'second_factor' });
    expect((await b.get('/api/account/sessions')).status).toBe(401);
    const reused = await b.post('/api/session/second-factor', { code: totpCode(secret, now) });
    expect(reused.status).toBe(400);
    expect(reused.body.errors?.[0]).toMatchObject({ code: 'AU003', details: { field: 'code' } });
    const next = totpCode(secret, now + 30_000);
    expect((await b.post('/api/session/second-factor', { code: next })).status).toBe(200);
    const c2 = d.client();
    await c2.signIn('totp@example.com', PASSWORD);
    expect((await c2.post('/api/session/second-factor', { code: next })).status).toBe(400);
    // A recovery code works once too.
    const recovery = confirm.body.recoveryCodes[0]!;
    expect((await c2.post('/api/session/second-factor', { code: recovery.toUpperCase() })).status).toBe(200);
    const c3 = d.client();
    await c3.signIn('totp@example.com', PASSWORD);
    expect((await c3.post('/api/session/second-factor', { code: recovery })).status).toBe(400);
  });

  it('a password change ends every other session; the old password stops working', async () => {
    const a = await newUser('change@example.com');
    const b = d.client();
    expect((await b.signIn('change@example.com', PASSWORD)).status).toBe(200);
    const oldCookie = b.cookie;
    const changed = await b.post('/api/account/password', { currentPassword: PASSWORD, newPassword: 'a much newer passphrase' });
    expect(changed.status).toBe(200);
    expect(b.cookie).not.toBe(oldCookie);
    expect((await b.get('/api/session')).status).toBe(200);
    expect((await a.get('/api/session')).status).toBe(401);
    const stale = d.client();
    stale.cookie = oldCookie;
    expect((await stale.get('/api/session')).status).toBe(401);
    expect((await d.client().signIn('change@example.com', PASSWORD)).status).toBe(401);
    expect((await d.client().signIn('change@example.com', 'a much newer passphrase')).status).toBe(200);
  });

  it('bad input gets a message naming its field', async () => {
    const c = await newUser('fields@example.com');
    const short = await c.post('/api/account/password', { currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.errors?.[0]).toMatchObject({ code: 'VE001', details: { field: 'newPassword' } });
    const wrong = await c.post('/api/account/password', { currentPassword: 'not it at all', newPassword: 'long enough password' });
    expect(wrong.body.errors?.[0]).toMatchObject({ details: { field: 'currentPassword' } });
    const missing = await c.post('/api/account/password', { newPassword: 'long enough password' });
    expect(missing.body.errors?.[0]).toMatchObject({ code: 'VE001', message: 'currentPassword: is required' });
  });

  it('an invite works once and not after it expired', async () => {
    const token = await d.invite(orgId, 'once@example.com', 'viewer');
    expect((await d.client().post('/api/invite/lookup', { token })).body).toMatchObject({ email: 'once@example.com', role: 'viewer', existingUser: false });
    expect((await d.client().accept(token, PASSWORD)).status).toBe(200);
    const again = await d.client().accept(token, PASSWORD);
    expect(again.status).toBe(410);
    expect(again.body.errors?.[0]?.code).toBe('AU004');
    const old = await d.invite(orgId, 'late@example.com', 'viewer');
    await d.db.sql`update invites set expires_at = now() - interval '1 second' where email = 'late@example.com'`;
    expect((await d.client().post('/api/invite/lookup', { token: old })).status).toBe(410);
  });

  it('no response ever carried a password hash or a session id', async () => {
    expect(d.bodies.length).toBeGreaterThan(20);
    const rows = await d.db.sql<{ id_hash: string }[]>`select id_hash from sessions`;
    for (const body of d.bodies) {
      expect(body).not.toMatch(/\$argon2/);
      for (const r of rows) expect(body).not.toContain(r.id_hash);
    }
  });
});
