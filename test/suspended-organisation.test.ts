// Suspension end to end, black-box: the API and a 2-worker redirector cluster as separate
// processes over the machine's real Postgres and Redis (every cache tier on: each worker's LRU and
// the shared Redis tier), with a test-only ClickHouse HTTP endpoint for events. `admin org
// suspend` turns the organisation's links into 403 SML010 (JSON or HTML) within a second on every
// worker, and nothing is counted for those requests: no event, no click in the usage counters.
// `admin org resume` brings the redirects back; `admin link archive`/`restore` likewise (410 EN002).
import { mkdtempSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { send, until, type TestResponse } from './support/http-request.ts';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { createTestDatabase, deleteRedisPrefix, redisTestPrefix, type TestDatabase } from './support/servers.ts';
import { adminJson, apiClient, freePort, productionEnv, startProcess, type ChildService } from './support/service-process.ts';
import { removeTestDir } from './support/test-dirs.ts';

const pgUrl = inject('realPgUrl');
const redisUrl = inject('realRedisUrl');
const CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const CODE = 'suspended-link-1';

type Page = { data: { eventId: string; shortCode?: string }[]; hasMore: boolean; nextSince: string | null; afterEventId: string | null };

describe.skipIf(!pgUrl || !redisUrl)("a suspended organisation's links", () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'suspend-'));
  chmodSync(dir, 0o755);
  const prefix = redisTestPrefix();
  let db: TestDatabase;
  let ch: FakeClickHouse;
  let env: NodeJS.ProcessEnv;
  const procs: ChildService[] = [];
  let redirectPort = 0;
  let orgId = '';
  let client: ReturnType<typeof apiClient>;
  const admin = (...args: string[]) => adminJson(env, ...args);
  /** Every answer that served a click (302 to a browser GET): what must be counted, exactly. */
  let served = 0;

  const open = async (accept = 'application/json', userAgent = CHROME): Promise<TestResponse> => {
    const r = await send(redirectPort, `/${CODE}`, { host: 'sho.rt', headers: { 'user-agent': userAgent, accept } });
    if (r.status === 302) served++;
    return r;
  };
  /** Several connections at once, so both workers answer. */
  const openMany = (accept?: string): Promise<TestResponse[]> => Promise.all([1, 2, 3, 4].map(() => open(accept)));

  const countEvents = async (): Promise<number> => {
    let n = 0;
    let since = '2020-01-01T00:00:00Z';
    let after: string | null = null;
    for (;;) {
      const r: { status: number; body: { response?: Page } } = await client.get<Page>(
        `/link/external/v1/analytics/events?since=${encodeURIComponent(since)}${after ? `&afterEventId=${after}` : ''}&limit=100`,
      );
      expect(r.status).toBe(200);
      n += r.body.response!.data.length;
      since = r.body.response!.nextSince!;
      after = r.body.response!.afterEventId;
      if (!r.body.response!.hasMore) return n;
    }
  };
  const usedClicks = async (): Promise<number> => ((await admin('usage', '--org', orgId)) as unknown as { clicks: { used: number } }).clicks.used;

  beforeAll(async () => {
    db = await createTestDatabase(pgUrl!);
    ch = await startFakeClickHouse(join(dir, 'clickhouse'));
    const apiPort = await freePort();
    redirectPort = await freePort();
    env = productionEnv(
      { databaseUrl: db.url, redisUrl: redisUrl!, redisPrefix: prefix, clickhouseUrl: ch.url, dataDir: join(dir, 'data'), apiPort, redirectPort },
      { ANALYTICS_SYNC_SETTLE_MS: '50' },
    );
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    procs.push(await startProcess('api/main.ts', env, apiUrl));
    procs.push(await startProcess('redirector/main.ts', env, `http://127.0.0.1:${redirectPort}`));
    orgId = (await admin('org', 'create', '--name', 'Suspendable', '--plan', 'BUSINESS')).id!;
    client = apiClient(apiUrl, (await admin('key', 'create', '--org', orgId, '--label', 'suspend')).key!);
    expect((await client.save({ url: 'https://example.com/s', shortCode: CODE })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    for (const p of procs.reverse()) await p.stop();
    await ch?.close();
    await db?.drop();
    await deleteRedisPrefix(redisUrl!, prefix);
    removeTestDir(dir);
  });

  it('answer 403 SML010 within a second of `org suspend`, as JSON or HTML, and count nothing; `org resume` restores them', async () => {
    // Warm every tier: both workers' LRUs and the Redis tier hold the link and its organisation.
    for (let i = 0; i < 3; i++) for (const r of await openMany('text/html')) expect(r.headers.location).toBe('https://example.com/s');

    await admin('org', 'suspend', '--org', orgId);
    const t0 = Date.now();
    await until(async () => (await openMany()).every((r) => r.status === 403), 1_000, 20);
    expect(Date.now() - t0).toBeLessThan(1_000);

    const json = await open();
    expect(json.status).toBe(403);
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.text)).toEqual({ errors: [{ code: 'SML010', message: 'Access denied' }] });
    const html = await open('text/html,application/xhtml+xml');
    expect(html.status).toBe(403);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('Access denied');
    expect(html.text).toContain('SML010');
    // a link-preview crawler gets no preview page (and no METADATA_PREVIEW event) either
    expect((await open('text/html', 'facebookexternalhit/1.1')).status).toBe(403);
    for (const r of await openMany('text/html')) expect(r.status).toBe(403);
    // the API of the organisation is refused the same way
    expect((await client.get('/link/external/v1/shortenedUrl')).body.errors?.[0]?.code).toBe('SML010');

    await admin('org', 'resume', '--org', orgId);
    const t1 = Date.now();
    await until(async () => (await openMany()).every((r) => r.status === 302), 1_000, 20);
    expect(Date.now() - t1).toBeLessThan(1_000);
    for (const r of await openMany('text/html')) expect(r.headers.location).toBe('https://example.com/s');

    // Exactly the served clicks are counted: none of the 403 answers made an event or a click.
    await until(async () => (await countEvents()) >= served && (await usedClicks()) >= served, 20_000, 250);
    await new Promise((r) => setTimeout(r, 1_500)); // anything late would arrive by now
    expect(await countEvents()).toBe(served);
    expect(await usedClicks()).toBe(served);
  }, 60_000);

  it('`link archive` answers 410 EN002 within a second (403 SML010 while suspended); `link restore` redirects again', async () => {
    await admin('link', 'archive', '--org', orgId, '--code', CODE);
    const t0 = Date.now();
    await until(async () => (await openMany()).every((r) => r.status === 410), 1_000, 20);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(JSON.parse((await open()).text)).toEqual({ errors: [{ code: 'EN002', message: 'Link is no longer active' }] });
    // suspension outranks archiving: the resolver loads the organisation of an archived link too
    await admin('org', 'suspend', '--org', orgId);
    await until(async () => (await openMany()).every((r) => r.status === 403), 1_000, 20);
    await admin('org', 'resume', '--org', orgId);
    await until(async () => (await openMany()).every((r) => r.status === 410), 1_000, 20);
    await admin('link', 'restore', '--org', orgId, '--code', CODE);
    await until(async () => (await openMany()).every((r) => r.status === 302), 1_000, 20);
  }, 30_000);
});
