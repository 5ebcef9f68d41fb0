// Invariant: the API's observability is checked on a real listener over a real Postgres: every
// answer carries an X-Request-Id that is the `reqId` of that request's JSON log lines (pino, the
// logger the process makes), and a request refused by the rate limiter is counted once in
// shortlink_rate_limit_rejections_total of the process's Prometheus registry, by scope; /readyz
// follows the process's readiness (starting, ready, Postgres unavailable).
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApi } from '../../api/build-api.ts';
import { HttpClickHouseTransport } from '../../shared/analytics/clickhouse/http-clickhouse-transport.ts';
import { storeAnalyticsReads } from '../../shared/analytics/reads/store-analytics-reads.ts';
import { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { createApiKey, postgresKeyLookup } from '../../shared/keys/key-repository.ts';
import type { RateLimiter } from '../../shared/limits/rate-limiter.ts';
import { createOrganization } from '../../shared/orgs/org-repository.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createProcessMetrics } from '../../shared/runtime/prometheus-metrics.ts';
import { Readiness } from '../../shared/runtime/readiness.ts';
import { createTestDatabase, type TestDatabase } from '../support/servers.ts';
import { linkServiceDeps } from '../../shared/links/save-link.ts';

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
let key: string;
let refuse = false;
const lines: Record<string, unknown>[] = [];
const metrics = createProcessMetrics();
let postgresAnswers = true;
const readiness = new Readiness([{ name: 'postgres', check: async () => (postgresAnswers ? db.sql`select 1` : Promise.reject(new Error('down'))) }]);

beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  const orgId = (await createOrganization(db.sql, { name: 'observability', plan: 'BUSINESS' })).id;
  key = (await createApiKey(db.sql, orgId, 'observability')).key;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const limiter: RateLimiter = {
    consume: async () => (refuse ? { allowed: false, retryAfterSeconds: 7, remaining: 0 } : { allowed: true, retryAfterSeconds: 0, remaining: 10 }),
    close: async () => {},
  };
  app = buildApi({
    sql: db.sql,
    keyLookup: postgresKeyLookup(db.sql),
    rateLimiter: limiter,
    links: linkServiceDeps(db.sql, { REDIRECT_PORT: 0, SHORT_LINK_BASE_URL: 'https://sho.rt' }),
    logger: createLogger('api', 'debug', sink),
    telemetry: metrics.telemetry,
    publicUrl: () => 'http://localhost',
    now: Date.now,
    analytics: storeAnalyticsReads(new AnalyticsStore(new HttpClickHouseTransport({ url: 'http://127.0.0.1:9' }))),
    readiness,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('API observability', () => {
  it('GET /readyz: 503 while starting, 200 ready, 503 naming Postgres while it does not answer, 503 from the stop signal; /healthz 200 throughout', async () => {
    const ready = async (): Promise<[number, unknown]> => {
      const r = await fetch(`${base}/readyz`);
      return [r.status, await r.json()];
    };
    expect(await ready()).toEqual([503, { response: { status: 'starting' } }]);
    readiness.markReady();
    expect(await ready()).toEqual([200, { response: { status: 'ready' } }]);
    postgresAnswers = false;
    await new Promise((r) => setTimeout(r, 1_100)); // past the check's one-second memo
    expect(await ready()).toEqual([503, { response: { status: 'unavailable', unavailable: ['postgres'] } }]);
    postgresAnswers = true;
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await ready())[0]).toBe(200);
    readiness.stopping(); // what onShutdown does the moment SIGTERM arrives
    expect(await ready()).toEqual([503, { response: { status: 'stopping' } }]);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('each answer has a request id, and the JSON log lines of that request carry it as reqId', async () => {
    const a = await fetch(`${base}/healthz`);
    const b = await fetch(`${base}/healthz`);
    const idA = a.headers.get('x-request-id');
    const idB = b.headers.get('x-request-id');
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(idB).not.toBe(idA);
    const ofA = lines.filter((l) => l.reqId === idA);
    expect(ofA.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(ofA[0]).toMatchObject({ name: 'api', level: expect.any(Number), time: expect.any(Number) });
  });

  it('a rate-limited request is counted by scope in the registry', async () => {
    const count = async (): Promise<number> =>
      Number(/^shortlink_rate_limit_rejections_total\{scope="crud"\} (\d+)$/m.exec(await metrics.registry.metrics())?.[1] ?? 0);
    refuse = false;
    expect((await fetch(`${base}/link/external/v1/shortenedUrl`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect(await count()).toBe(0);
    refuse = true;
    const refused = await fetch(`${base}/link/external/v1/shortenedUrl`, { headers: { 'x-api-key': key } });
    expect(refused.status).toBe(429);
    expect(await count()).toBe(1);
  });
});
