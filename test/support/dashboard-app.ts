// Invariant: the dashboard's server built in the test process on its own fresh database (real
// Postgres), driven over real HTTP on a loopback port by a client that keeps its cookies, sends
// the dashboard's Origin and the session's CSRF token unless a test says otherwise, and records
// every body it received (for the "nothing secret in any response" checks).
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildDashboard } from '../../dashboard/build-dashboard.ts';
import { HttpClickHouseTransport } from '../../shared/analytics/clickhouse/http-clickhouse-transport.ts';
import { storeAnalyticsReads } from '../../shared/analytics/reads/store-analytics-reads.ts';
import { storeAnalyticsPurge } from '../../shared/analytics/store/store-analytics-purge.ts';
import { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { type DomainChecker, startDomainChecker } from '../../dashboard/domain-checks.ts';
import { SPA_DIST } from '../../dashboard/spa-assets.ts';
import { createInvite } from '../../shared/accounts/invites.ts';
import type { Role } from '../../shared/accounts/roles.ts';
import { linkServiceDeps } from '../../shared/links/save-link.ts';
import { MemoryRateLimiter } from '../../shared/limits/memory-rate-limiter.ts';
import { createOrganization } from '../../shared/orgs/org-repository.ts';
import type { Plan } from '../../shared/orgs/plans.ts';
import { createTestDatabase, type TestDatabase } from './servers.ts';

export interface DashboardApp {
  app: FastifyInstance;
  db: TestDatabase;
  base: string;
  publicUrl: string;
  /** Every response body any client received. */
  bodies: string[];
  client(): DashboardClient;
  org(plan?: Plan): Promise<string>;
  invite(orgId: string, email: string | null, role: Role): Promise<string>;
  /** The custom-domain checker (its timer is off: tests call tick()). */
  checker: DomainChecker;
  close(): Promise<void>;
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T & { errors?: { code: string; message: string; details?: Record<string, unknown> }[] };
}

export interface DashboardClient {
  cookie: string | null;
  csrf: string;
  get<T = Record<string, unknown>>(path: string): Promise<Answer<T>>;
  post<T = Record<string, unknown>>(path: string, body?: unknown, opts?: { origin?: string | null; csrf?: string | null }): Promise<Answer<T>>;
  /** Accepts an invite (setting the password) and keeps the session. */
  accept(token: string, password: string, email?: string): Promise<Answer>;
  signIn(email: string, password: string): Promise<Answer>;
}

export async function startDashboardApp(
  opts: {
    publicUrl?: string;
    dnsServers?: string[];
    signUp?: 'invite' | 'open';
    analytics?: AnalyticsStore;
    /** ANALYTICS_RETENTION_DAYS (default: kept for good). */
    retentionDays?: number;
    /** WEBHOOK_ALLOW_PRIVATE (default true: test receivers listen on loopback over http). */
    allowPrivateWebhooks?: boolean;
  } = {},
): Promise<DashboardApp> {
  const db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  const bodies: string[] = [];
  const checker = startDomainChecker({
    sql: db.sql,
    dnsServers: opts.dnsServers ?? ['127.0.0.1:1'],
    defaultHost: 'sho.rt',
    now: Date.now,
    onError: () => undefined,
    tickMs: 3_600_000,
  });
  // Without a store of the test's own, analytics reads and purges meet a closed port (503 SML006).
  const store = opts.analytics ?? new AnalyticsStore(new HttpClickHouseTransport({ url: 'http://127.0.0.1:9' }));
  const deps = {
    analytics: storeAnalyticsReads(store),
    analyticsPurge: storeAnalyticsPurge(store),
    retentionDays: opts.retentionDays ?? null,
    sql: db.sql,
    rateLimiter: new MemoryRateLimiter(),
    publicUrl: opts.publicUrl ?? 'http://127.0.0.1:1',
    shortLinkBase: 'https://sho.rt',
    signUp: opts.signUp ?? 'invite',
    assetsDir: SPA_DIST,
    now: Date.now,
    links: linkServiceDeps(db.sql, { REDIRECT_PORT: 8080, SHORT_LINK_BASE_URL: 'https://sho.rt' }),
    domains: checker,
    webhooks: { allowPrivate: opts.allowPrivateWebhooks ?? true, secretsKey: Buffer.alloc(32, 1) },
  };
  const app = await buildDashboard(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  if (!opts.publicUrl) deps.publicUrl = base;
  const publicUrl = deps.publicUrl;

  const client = (): DashboardClient => {
    const c: DashboardClient = {
      cookie: null,
      csrf: '',
      async get(path) {
        return send('GET', path, undefined, {});
      },
      async post(path, body, o = {}) {
        return send('POST', path, body ?? {}, o);
      },
      async accept(token, password, email) {
        return c.post('/api/invite/accept', { token, password, ...(email ? { email } : {}) });
      },
      async signIn(email, password) {
        return c.post('/api/session', { email, password });
      },
    };
    const send = async (method: string, path: string, body: unknown, o: { origin?: string | null; csrf?: string | null }) => {
      const headers: Record<string, string> = {};
      if (c.cookie) headers.cookie = c.cookie;
      if (method !== 'GET') {
        headers['content-type'] = 'application/json';
        const origin = o.origin === undefined ? publicUrl : o.origin;
        if (origin !== null) headers.origin = origin;
        const csrf = o.csrf === undefined ? c.csrf : o.csrf;
        if (csrf) headers['x-csrf-token'] = csrf;
      }
      const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      bodies.push(text);
      for (const set of r.headers.getSetCookie()) {
        const [pair] = set.split(';');
        const value = pair?.slice(pair.indexOf('=') + 1) ?? '';
        c.cookie = value === '' ? null : pair!;
      }
      const parsed = text && r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {};
      if (typeof parsed.csrfToken === 'string') c.csrf = parsed.csrfToken;
      if (typeof parsed.session?.csrfToken === 'string') c.csrf = parsed.session.csrfToken;
      return { status: r.status, headers: r.headers, body: parsed };
    };
    return c;
  };

  return {
    app,
    db,
    base,
    publicUrl,
    bodies,
    client,
    org: async (plan = 'BUSINESS') => (await createOrganization(db.sql, { name: `org ${plan}`, plan })).id,
    invite: async (orgId, email, role) => (await createInvite(db.sql, { orgId, email, role, invitedBy: 'test' })).token,
    checker,
    close: async () => {
      checker.stop();
      await app.close();
      await db.drop();
    },
  };
}
