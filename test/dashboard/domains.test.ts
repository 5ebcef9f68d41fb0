// Invariant: custom-domain verification against a real DNS server the test runs: a domain added on
// the dashboard is PENDING and serves nothing until _shortlink-challenge.<host> holds its token,
// then ACTIVE (usable by saves, answered 200 by the TLS ask endpoint); a host another organisation
// serves is refused with a message naming the field; the schedule is every minute for the first
// hour, then hourly, and FAILED after 7 days; the page's advice says whether the host points at the
// default short host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTlsAsk } from '../../dashboard/tls-ask.ts';
import { nextCheckDelay } from '../../shared/domains/domain-verification.ts';
import { type DashboardApp, type DashboardClient, startDashboardApp } from '../support/dashboard-app.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';

const PASSWORD = 'correct horse battery';
let dns: TestDnsServer;
let d: DashboardApp;
let owner: DashboardClient;
let other: DashboardClient;
let ask: { port: number; close(): Promise<void> };

interface DomainView {
  id: string;
  host: string;
  status: string;
  record: { name: string; value: string } | null;
  lastCheckError: string | null;
  pointsAtDefault: boolean | null;
  nextCheckAt: string | null;
}

const askStatus = async (host: string) => (await fetch(`http://127.0.0.1:${ask.port}/ask?domain=${encodeURIComponent(host)}`)).status;

beforeAll(async () => {
  dns = await startDnsServer();
  d = await startDashboardApp({ dnsServers: [dns.address] });
  ask = await startTlsAsk(d.db.sql, 0, '127.0.0.1');
  owner = d.client();
  expect((await owner.accept(await d.invite(await d.org('PRO'), 'owner@acme.test', 'owner'), PASSWORD)).status).toBe(200);
  other = d.client();
  expect((await other.accept(await d.invite(await d.org('PRO'), 'owner@other.test', 'owner'), PASSWORD)).status).toBe(200);
});
afterAll(async () => {
  await ask?.close();
  await d?.close();
  await dns?.close();
});

describe('custom-domain verification', () => {
  let acme: DomainView;

  it('a new domain is PENDING with its TXT record, and serves nothing', async () => {
    const r = await owner.post<DomainView>('/api/domains', { host: 'Go.Acme.Test' });
    expect(r.status).toBe(200);
    acme = r.body;
    expect(acme).toMatchObject({ host: 'go.acme.test', status: 'PENDING', lastCheckError: 'no TXT record at _shortlink-challenge.go.acme.test' });
    expect(acme.record).toEqual({ name: '_shortlink-challenge.go.acme.test', value: expect.stringMatching(/^shortlink-verify=[0-9a-f]{32}$/) });
    expect(dns.queries).toContain('TXT _shortlink-challenge.go.acme.test');
    expect(await askStatus('go.acme.test')).toBe(404);
    const save = await owner.post('/api/links', { url: 'https://acme.test/x', customDomain: 'go.acme.test' });
    expect(save.status).toBe(400);
    expect(save.body.errors?.[0]?.details).toMatchObject({ field: 'customDomain' });
  });

  it('a wrong value keeps it PENDING; the right one makes it ACTIVE, and it serves', async () => {
    dns.setTxt('_shortlink-challenge.go.acme.test', ['shortlink-verify=not-it']);
    const wrong = await owner.post<DomainView>(`/api/domains/${acme.id}/check`);
    expect(wrong.body).toMatchObject({ status: 'PENDING', lastCheckError: expect.stringContaining('does not hold') });
    dns.setTxt('_shortlink-challenge.go.acme.test', ['v=spf1 -all', acme.record!.value]);
    dns.setCname('go.acme.test', 'sho.rt.');
    const ok = await owner.post<DomainView>(`/api/domains/${acme.id}/check`);
    expect(ok.body).toMatchObject({ status: 'ACTIVE', lastCheckError: null, pointsAtDefault: true });
    expect(await askStatus('go.acme.test')).toBe(200);
    expect(await askStatus('GO.ACME.TEST.')).toBe(200);
    expect(await askStatus('unknown.acme.test')).toBe(404);
    const save = await owner.post<{ smartLink: string }>('/api/links', { url: 'https://acme.test/x', shortCode: 'acme-custom', customDomain: 'go.acme.test' });
    expect(save.status).toBe(200);
    expect(save.body.smartLink).toBe('https://go.acme.test/acme-custom');
    const [outbox] = await d.db.sql<{ n: number }[]>`select count(*)::int as n from invalidation_outbox where message like '%go.acme.test%'`;
    expect(outbox!.n).toBeGreaterThan(0);
  });

  it('a host another organisation serves is refused, naming the field', async () => {
    const r = await other.post('/api/domains', { host: 'go.acme.test' });
    expect(r.status).toBe(409);
    expect(r.body.errors?.[0]).toMatchObject({ code: 'SML004', message: 'host: another organisation holds this domain', details: { field: 'host' } });
    const bad = await other.post('/api/domains', { host: 'https://x.test/path' });
    expect(bad.body.errors?.[0]?.details).toMatchObject({ field: 'host' });
  });

  it('checks every minute for the first hour, then hourly; unverified after 7 days it is FAILED', async () => {
    expect(nextCheckDelay(0, 59 * 60_000)).toBe(60_000);
    expect(nextCheckDelay(0, 61 * 60_000)).toBe(3_600_000);
    const fresh = (await other.post<DomainView>('/api/domains', { host: 'links.other.test' })).body;
    const late = (await other.post<DomainView>('/api/domains', { host: 'late.other.test' })).body;
    const old = (await other.post<DomainView>('/api/domains', { host: 'old.other.test' })).body;
    await d.db.sql`update domains set created_at = now() - interval '2 hours' where id = ${Number(late.id)}`;
    await d.db.sql`update domains set created_at = now() - interval '8 days' where id = ${Number(old.id)}`;
    await d.db.sql`update domains set next_check_at = now() - interval '1 second' where id in ${d.db.sql([Number(fresh.id), Number(late.id), Number(old.id)])}`;
    expect(await d.checker.tick()).toBe(3);
    const rows = await d.db.sql<{ host: string; status: string; wait: number }[]>`
      select host, status, extract(epoch from next_check_at - last_checked_at)::int as wait from domains where org_id = (select org_id from domains where id = ${Number(fresh.id)})`;
    const by = Object.fromEntries(rows.map((r) => [r.host, r]));
    expect(by['links.other.test']).toMatchObject({ status: 'PENDING', wait: 60 });
    expect(by['late.other.test']).toMatchObject({ status: 'PENDING', wait: 3600 });
    expect(by['old.other.test']).toMatchObject({ status: 'FAILED', wait: null });
    expect(await d.checker.tick()).toBe(0);
    // "Check now" still verifies a FAILED domain.
    const failed = (await other.get<{ domains: DomainView[] }>('/api/domains')).body.domains.find((x) => x.host === 'old.other.test')!;
    dns.setTxt('_shortlink-challenge.old.other.test', [failed.record!.value]);
    expect((await other.post<DomainView>(`/api/domains/${failed.id}/check`)).body.status).toBe('ACTIVE');
  });

  it('removing a domain stops it serving', async () => {
    expect((await owner.post(`/api/domains/${acme.id}/remove`)).status).toBe(200);
    expect(await askStatus('go.acme.test')).toBe(404);
    expect((await owner.get<{ domains: unknown[] }>('/api/domains')).body.domains).toEqual([]);
  });
});
