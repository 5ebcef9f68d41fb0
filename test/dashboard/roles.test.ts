// Invariant: the roles table is enforced by the server, whatever a page shows: each role gets 403
// for what it may not do and succeeds at what it may; admins never manage owners; the last owner
// stays; an invitation past the seats is QE001 SEATS; the 2FA rule holds members to their account
// page; keys are shown once and their labels are unique (409 naming the field); store URLs must be
// https (a message naming the field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../shared/accounts/totp.ts';
import { type DashboardApp, type DashboardClient, startDashboardApp } from '../support/dashboard-app.ts';

const PASSWORD = 'correct horse battery';
let d: DashboardApp;
let orgId: string;
const as: Record<'owner' | 'admin' | 'member' | 'viewer', DashboardClient> = {} as never;

beforeAll(async () => {
  d = await startDashboardApp();
  orgId = await d.org('PRO');
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
    const c = d.client();
    expect((await c.accept(await d.invite(orgId, `${role}@example.com`, role), PASSWORD)).status).toBe(200);
    as[role] = c;
  }
});
afterAll(async () => d?.close());

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

describe('roles on the server', () => {
  it('every role reads links, apps, members, usage and settings', async () => {
    for (const role of ROLES)
      for (const path of ['/api/links', '/api/apps', '/api/members', '/api/usage', '/api/org', '/api/domains'])
        expect((await as[role].get(path)).status, `${role} ${path}`).toBe(200);
  });

  it('links: owner, admin and member write; viewer gets 403', async () => {
    for (const role of ROLES) {
      const r = await as[role].post('/api/links', { url: `https://example.com/${role}` });
      expect(r.status, role).toBe(role === 'viewer' ? 403 : 200);
      if (role !== 'viewer') expect(r.body).toMatchObject({ createdVia: 'INTERNAL', createdBy: `${role}@example.com` });
    }
  });

  it('API keys and apps: owner and admin only', async () => {
    for (const role of ROLES) {
      const allowed = role === 'owner' || role === 'admin';
      expect((await as[role].get('/api/keys')).status, role).toBe(allowed ? 200 : 403);
      expect((await as[role].post('/api/keys', { label: `key of ${role}`, scopes: ['links:read'] })).status, role).toBe(allowed ? 200 : 403);
      const app = await as[role].post('/api/apps', { name: `app ${role}`, platform: 'ANDROID', storeUrl: 'https://play.google.com/store/apps/details?id=x' });
      expect(app.status, role).toBe(allowed ? 200 : 403);
    }
  });

  it('a key is answered once; a second key with that label is 409 naming the field; list never has a value', async () => {
    const made = await as.owner.post<{ key: string; view: { id: string; createdBy: string; status: string } }>('/api/keys', {
      label: 'CI key',
      scopes: ['links:read', 'links:write'],
    });
    expect(made.status).toBe(200);
    expect(made.body.key).toMatch(/^slk_/);
    expect(made.body.view).toMatchObject({ createdBy: 'owner@example.com', status: 'active' });
    const again = await as.owner.post('/api/keys', { label: 'CI key', scopes: ['links:read'] });
    expect(again.status).toBe(409);
    expect(again.body.errors?.[0]).toMatchObject({ code: 'SML004', details: { field: 'label' } });
    const listed = await as.admin.get('/api/keys');
    expect(JSON.stringify(listed.body)).not.toContain(made.body.key);
    const bad = await as.owner.post('/api/keys', { label: 'x', scopes: ['links:read'] });
    expect(bad.body.errors?.[0]).toMatchObject({ code: 'SML002', details: { field: 'label' } });
    expect((await as.owner.post(`/api/keys/${made.body.view.id}/revoke`)).body).toMatchObject({ status: 'revoked' });
  });

  it('a store URL must be https (a message naming the field)', async () => {
    for (const storeUrl of ['http://apps.apple.com/app/id1', 'apps.apple.com', 'javascript:alert(1)']) {
      const r = await as.owner.post('/api/apps', { name: 'Bad', platform: 'IOS', storeUrl });
      expect(r.status, storeUrl).toBe(400);
      expect(r.body.errors?.[0]?.details, storeUrl).toEqual({ field: 'storeUrl' });
    }
  });

  it('members: owner and admin manage; admins never touch owners; the last owner stays', async () => {
    expect((await as.member.post('/api/invites', { email: 'x@example.com', role: 'viewer' })).status).toBe(403);
    expect((await as.viewer.post('/api/invites', { email: 'x@example.com', role: 'viewer' })).status).toBe(403);
    expect((await as.admin.post('/api/invites', { email: 'boss@example.com', role: 'owner' })).status).toBe(403);
    const inv = await as.admin.post<{ inviteUrl: string }>('/api/invites', { email: 'new@example.com', role: 'member' });
    expect(inv.status).toBe(200);
    expect(inv.body.inviteUrl).toMatch(new RegExp(`^${d.publicUrl}/invite#`));
    const members = (await as.owner.get<{ members: { userId: string; email: string }[] }>('/api/members')).body.members;
    const id = (email: string) => members.find((m) => m.email === email)!.userId;
    expect((await as.admin.post(`/api/members/${id('owner@example.com')}/role`, { role: 'viewer' })).status).toBe(403);
    expect((await as.admin.post(`/api/members/${id('owner@example.com')}/remove`)).status).toBe(403);
    expect((await as.admin.post(`/api/members/${id('admin@example.com')}/role`, { role: 'owner' })).status).toBe(403);
    const last = await as.owner.post(`/api/members/${id('owner@example.com')}/role`, { role: 'admin' });
    expect(last.status).toBe(400);
    expect(last.body.errors?.[0]?.message).toBe('An organisation keeps at least one owner');
    expect((await as.admin.post(`/api/members/${id('viewer@example.com')}/role`, { role: 'member' })).status).toBe(200);
    expect((await as.owner.post(`/api/members/${id('viewer@example.com')}/role`, { role: 'viewer' })).status).toBe(200);
  });

  it('an invitation past the plan’s seats is QE001 SEATS', async () => {
    // PRO: 5 seats; 4 members and 1 pending invitation hold them all.
    const r = await as.owner.post('/api/invites', { email: 'sixth@example.com', role: 'viewer' });
    expect(r.status).toBe(402);
    expect(r.body.errors?.[0]).toMatchObject({ code: 'QE001', details: { quota: 'SEATS', current: 5, limit: 5 } });
    expect((await as.owner.get<{ seats: unknown }>('/api/members')).body.seats).toEqual({ used: 5, limit: 5 });
  });

  it('settings: owners only; requiring 2FA holds members without it to their account page', async () => {
    for (const role of ['admin', 'member', 'viewer'] as const)
      expect((await as[role].post('/api/org', { name: 'Renamed', timezone: 'Europe/Paris', require2fa: false })).status, role).toBe(403);
    const bad = await as.owner.post('/api/org', { name: 'Acme', timezone: 'Mars/Olympus', require2fa: false });
    expect(bad.body.errors?.[0]?.details).toEqual({ field: 'timezone' });
    const self = await as.owner.post('/api/org', { name: 'Acme', timezone: 'Europe/Paris', require2fa: true });
    expect(self.body.errors?.[0]?.details).toEqual({ field: 'require2fa' });
    const { secret } = (await as.owner.post<{ secret: string }>('/api/account/2fa/start', { password: PASSWORD })).body;
    expect((await as.owner.post('/api/account/2fa/confirm', { code: totpCode(secret, Date.now()) })).status).toBe(200);
    expect((await as.owner.post('/api/org', { name: 'Acme', timezone: 'Europe/Paris', require2fa: true })).body).toMatchObject({
      name: 'Acme',
      require2fa: true,
    });
    const held = await as.member.get('/api/links');
    expect(held.status).toBe(403);
    expect(held.body.errors?.[0]?.code).toBe('AU005');
    expect((await as.member.get('/api/account/sessions')).status).toBe(200);
    expect((await as.owner.post('/api/org', { name: 'Acme', timezone: 'Europe/Paris', require2fa: false })).status).toBe(200);
    expect((await as.member.get('/api/links')).status).toBe(200);
  });
});

describe('privacy settings on the server', () => {
  const body = (over: Record<string, unknown> = {}) => ({
    tracking: { referrer: false, userAgent: true, geo: 'none', dnt: true },
    retentionDays: '30',
    ...over,
  });

  it('owners only; a bad retention is a field error that changes no switch; a good one is kept', async () => {
    for (const role of ['admin', 'member', 'viewer'] as const) expect((await as[role].post('/api/org/privacy', body())).status, role).toBe(403);
    for (const retentionDays of ['0', '36501', '1.5', 'soon']) {
      const bad = await as.owner.post('/api/org/privacy', body({ retentionDays }));
      expect(bad.status, retentionDays).toBe(400);
      expect(bad.body.errors?.[0]).toMatchObject({ code: 'VE001', details: { field: 'retentionDays' } });
    }
    const geo = await as.owner.post('/api/org/privacy', body({ tracking: { referrer: true, userAgent: true, geo: 'street', dnt: false } }));
    expect(geo.status).toBe(400);
    const before = (await as.viewer.get<{ tracking: object; retentionDays: number | null }>('/api/org')).body;
    expect(before).toMatchObject({ tracking: { referrer: true, userAgent: true, geo: 'city', dnt: false }, retentionDays: null, serviceRetentionDays: null });
    const saved = await as.owner.post('/api/org/privacy', body());
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ tracking: { referrer: false, userAgent: true, geo: 'none', dnt: true }, retentionDays: 30 });
    expect((await as.owner.post('/api/org/privacy', body({ retentionDays: ' ' }))).body).toMatchObject({ retentionDays: null });
  });
});

describe('analytics on the server', () => {
  it('every role may read; without ClickHouse the answer is 503 SML006 within a second; bad ranges are VE001', async () => {
    for (const role of ROLES) {
      const started = Date.now();
      const r = await as[role].get('/api/analytics?from=2026-01-01&to=2026-01-07');
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(r.status, role).toBe(503);
      expect(r.body.errors?.[0]?.code).toBe('SML006');
    }
    const bad = await as.viewer.get('/api/analytics?from=2026-01-01&to=2026-12-31');
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.message).toContain('186 days');
    expect((await d.client().get('/api/analytics?from=2026-01-01&to=2026-01-07')).status).toBe(401);
  });

  it('the export download needs ANALYTICS_EXPORT: a PRO organisation gets 402 FE001', async () => {
    const r = await as.owner.get('/api/analytics/export?from=2026-01-01&to=2026-01-07&format=csv');
    expect(r.status).toBe(402);
    expect(r.body.errors?.[0]).toMatchObject({ code: 'FE001', details: { feature: 'ANALYTICS_EXPORT' } });
  });
});
