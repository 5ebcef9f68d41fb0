// Invariant: editing an endpoint and replaying a time range of its messages on the dashboard's
// server: owners and admins may, members and viewers get 403 (as for enabling); an edited URL
// passes the add's address policy (not https, a private address: 400 VE001 naming `url` with its
// reason), event types are checked, another organisation's endpoint is 404; a range replays the
// messages queued in [from, to) with their ids, and a bad or empty range names its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardApp, type DashboardClient, startDashboardApp } from '../support/dashboard-app.ts';

const PASSWORD = 'correct horse battery';
const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
let d: DashboardApp;
let orgId: string;
const as: Record<(typeof ROLES)[number], DashboardClient> = {} as never;
// IP literals: the address policy needs no DNS for them.
const PUBLIC = 'https://93.184.215.14/hook';

interface EndpointView {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
}

beforeAll(async () => {
  d = await startDashboardApp({ allowPrivateWebhooks: false });
  orgId = await d.org('PRO');
  for (const role of ROLES) {
    const c = d.client();
    expect((await c.accept(await d.invite(orgId, `${role}@example.com`, role), PASSWORD)).status).toBe(200);
    as[role] = c;
  }
});
afterAll(async () => d?.close());

async function addEndpoint(): Promise<EndpointView> {
  const r = await as.owner.post<{ endpoint: EndpointView }>('/api/webhooks', { url: PUBLIC, eventTypes: ['link.created'] });
  expect(r.status).toBe(200);
  return r.body.endpoint;
}

describe('editing an endpoint', () => {
  it('owners and admins change the URL and event types; members and viewers get 403 and change nothing', async () => {
    const e = await addEndpoint();
    for (const role of ROLES) {
      const r = await as[role].post<EndpointView>(`/api/webhooks/${e.id}`, {
        url: `https://93.184.215.14/${role}`,
        eventTypes: ['link.expired', 'link.updated'],
      });
      const allowed = role === 'owner' || role === 'admin';
      expect(r.status, role).toBe(allowed ? 200 : 403);
      if (allowed) expect(r.body).toMatchObject({ id: e.id, url: `https://93.184.215.14/${role}`, eventTypes: ['link.expired', 'link.updated'] });
      else expect(r.body.errors?.[0]?.code, role).toBe('SML010');
    }
    const listed = await as.viewer.get<{ endpoints: EndpointView[] }>('/api/webhooks');
    expect(listed.body.endpoints.find((x) => x.id === e.id)?.url).toBe('https://93.184.215.14/admin');
  });

  it('the URL passes the same policy as add: the reason and the field are named', async () => {
    const e = await addEndpoint();
    const cases: [string, string][] = [
      ['http://93.184.215.14/hook', 'NOT_HTTPS'],
      ['https://10.0.0.7/hook', 'PRIVATE_ADDRESS'],
      ['https://[::1]/hook', 'PRIVATE_ADDRESS'],
      ['https://127.0.0.1/hook', 'PRIVATE_ADDRESS'],
      ['not a url', 'INVALID_URL'],
    ];
    for (const [url, reason] of cases) {
      const r = await as.owner.post(`/api/webhooks/${e.id}`, { url, eventTypes: ['link.created'] });
      expect([url, r.status, r.body.errors?.[0]?.code, r.body.errors?.[0]?.details]).toEqual([url, 400, 'VE001', { field: 'url', reason }]);
    }
    const private10 = await as.owner.post(`/api/webhooks/${e.id}`, { url: 'https://10.0.0.7/hook', eventTypes: ['link.created'] });
    expect(private10.body.errors?.[0]?.message).toContain('private address (10.0.0.7)');
    const types = await as.owner.post(`/api/webhooks/${e.id}`, { url: PUBLIC, eventTypes: ['link.exploded'] });
    expect([types.status, types.body.errors?.[0]?.details]).toEqual([400, { field: 'eventTypes' }]);
    const none = await as.owner.post(`/api/webhooks/${e.id}`, { url: PUBLIC, eventTypes: [] });
    expect([none.status, none.body.errors?.[0]?.details]).toEqual([400, { field: 'eventTypes' }]);
    // Nothing refused was saved.
    const listed = await as.owner.get<{ endpoints: EndpointView[] }>('/api/webhooks');
    expect(listed.body.endpoints.find((x) => x.id === e.id)).toMatchObject({ url: PUBLIC, eventTypes: ['link.created'] });
  });

  it("another organisation's endpoint, or no endpoint, is 404 EN001", async () => {
    const otherOrg = await d.org('PRO');
    const other = d.client();
    await other.accept(await d.invite(otherOrg, 'other-owner@example.com', 'owner'), PASSWORD);
    const theirs = await other.post<{ endpoint: EndpointView }>('/api/webhooks', { url: PUBLIC, eventTypes: ['link.created'] });
    for (const id of [theirs.body.endpoint.id, 'nope']) {
      const r = await as.owner.post(`/api/webhooks/${id}`, { url: PUBLIC, eventTypes: ['link.created'] });
      expect([r.status, r.body.errors?.[0]?.code]).toEqual([404, 'EN001']);
      const replay = await as.owner.post(`/api/webhooks/${id}/replay`, { from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' });
      expect([replay.status, replay.body.errors?.[0]?.code]).toEqual([404, 'EN001']);
    }
  });
});

describe('replaying a time range', () => {
  it('sends again the messages queued in [from, to) with their ids; members and viewers get 403', async () => {
    const e = await addEndpoint();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push(((await as.owner.post<{ webhookId: string }>(`/api/webhooks/${e.id}/test`)).body as { webhookId: string }).webhookId);
    // Place them an hour apart and mark them delivered, as a worker would have.
    for (const [i, id] of sent.entries())
      await d.db.sql`update webhook_messages set status = 'DELIVERED', created_at = ${`2026-11-20T0${i}:30:00Z`} where id = ${id}`;
    for (const role of ['member', 'viewer'] as const) {
      const r = await as[role].post(`/api/webhooks/${e.id}/replay`, { from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' });
      expect(r.status, role).toBe(403);
    }
    const pending = await d.db.sql<{ n: number }[]>`select count(*)::int as n from webhook_messages where endpoint_id = ${e.id} and status = 'PENDING'`;
    expect(pending[0]?.n).toBe(0);

    const r = await as.admin.post<{ replayed: string[] }>(`/api/webhooks/${e.id}/replay`, { from: '2026-11-20T00:30:00Z', to: '2026-11-20T02:30:00Z' });
    expect(r.status).toBe(200);
    expect([...r.body.replayed].sort()).toEqual([sent[0], sent[1]].sort());
    const rows = await d.db.sql<{ id: string; status: string }[]>`select id, status from webhook_messages where endpoint_id = ${e.id} order by created_at`;
    expect(rows.map((x) => [x.id, x.status])).toEqual([
      [sent[0], 'PENDING'],
      [sent[1], 'PENDING'],
      [sent[2], 'DELIVERED'],
    ]);
  });

  it('a bad or empty range names its field', async () => {
    const e = await addEndpoint();
    const cases: [Record<string, string>, string][] = [
      [{ from: '', to: '2026-11-21T00:00:00Z' }, 'from'],
      [{ from: 'yesterday', to: '2026-11-21T00:00:00Z' }, 'from'],
      [{ from: '2026-11-21T00:00:00Z', to: '' }, 'to'],
      [{ from: '2026-11-21T00:00:00Z', to: '2026-11-20T00:00:00Z' }, 'to'],
      [{ from: '2026-11-21T00:00:00Z', to: '2026-11-21T00:00:00Z' }, 'to'],
    ];
    for (const [body, field] of cases) {
      const r = await as.owner.post(`/api/webhooks/${e.id}/replay`, body);
      expect([JSON.stringify(body), r.status, r.body.errors?.[0]?.code, r.body.errors?.[0]?.details]).toEqual([JSON.stringify(body), 400, 'VE001', { field }]);
    }
    const missing = await as.owner.post(`/api/webhooks/${e.id}/replay`, {});
    expect(missing.status).toBe(400);
  });

  it('enabling stays owners and admins only (403 for members and viewers)', async () => {
    const e = await addEndpoint();
    for (const role of ROLES) {
      const r = await as[role].post(`/api/webhooks/${e.id}/enabled`, { enabled: false });
      expect(r.status, role).toBe(role === 'owner' || role === 'admin' ? 200 : 403);
    }
  });
});
