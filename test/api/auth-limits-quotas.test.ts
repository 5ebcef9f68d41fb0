import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient } from '../support/service-process.ts';
import { bootApi, type ApiFixture } from '../support/api-fixture.ts';
import { deleteRedisPrefix, redisTestPrefix } from '../support/servers.ts';

const redisUrl = inject('realRedisUrl');
const prefix = redisTestPrefix();

// Booted with REDIS_URL when the machine's Redis answers: the Redis rate limiter and bus are the
// ones under test; otherwise the in-memory limiter (its own contract suite covers both alike).
let fx: ApiFixture;
beforeAll(async () => {
  fx = await bootApi(redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: prefix } : {});
});
afterAll(async () => {
  await fx?.close();
  if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
});

describe('authentication and scopes', () => {
  it('missing, unknown and revoked keys get 401 SML003 "Invalid API key"', async () => {
    const org = await fx.org('PRO', { label: 'to revoke' });
    expect((await org.client.list()).status).toBe(200);
    await fx.svc.admin('key', 'revoke', '--org', org.id, '--label', 'to revoke');
    for (const client of [apiClient(fx.svc.api, null), apiClient(fx.svc.api, 'slk_unknown'), org.client]) {
      const r = await client.list();
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ errors: [{ code: 'SML003', message: 'Invalid API key' }] });
    }
  });

  it('stores only a hash of the key', async () => {
    const org = await fx.org('PRO', { label: 'hashed' });
    const rows = await fx.db.sql<{ key_hash: string }[]>`select key_hash from api_keys where org_id = ${org.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).not.toContain(org.key);
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a duplicate label is 409 SML004 (through the CLI)', async () => {
    const org = await fx.org('PRO', { label: 'dup label' });
    const r = await fx.svc.adminRaw('key', 'create', '--org', org.id, '--label', 'dup label', '--json');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('SML004');
    expect(r.stdout).toBe('');
  });

  it('a key without the scope, or of a suspended organisation, gets 403 SML010 "Access denied"', async () => {
    const org = await fx.org('PRO', { label: 'reader', scopes: 'links:read' });
    expect((await org.client.list()).status).toBe(200);
    const denied = await org.client.save({ url: 'https://e.com' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ errors: [{ code: 'SML010', message: 'Access denied' }] });
    await fx.svc.admin('org', 'suspend', '--org', org.id);
    expect((await org.client.list()).status).toBe(403);
  });
});

describe('rate limits (token bucket per organisation and scope)', () => {
  it('FREE crud: 10 per minute shared by all keys, then 429 SML005 with Retry-After and details', async () => {
    const org = await fx.org('FREE', { limits: ['--crud-per-min', 'default'] });
    const second = await fx.svc.admin<{ key: string }>('key', 'create', '--org', org.id, '--label', 'second');
    const other = apiClient(fx.svc.api, second.key);
    for (let i = 0; i < 5; i++) expect((await org.client.list()).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await other.list()).status).toBe(200);
    // a bulk request costs one token
    expect((await org.client.bulk({ data: [{ url: 'https://e.com/1' }, { url: 'https://e.com/2' }] })).status).toBe(200);
    const limited = await other.list();
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(6);
    expect(limited.body.errors![0]).toEqual({
      code: 'SML005',
      message: 'Rate limit exceeded',
      details: { kind: 'rate_limit_exceeded', scope: 'crud', limitPerMin: 10, retryAfterSeconds: retry },
    });
    // another organisation's bucket is untouched
    const fresh = await fx.org('FREE', { limits: ['--crud-per-min', 'default'] });
    expect((await fresh.client.list()).status).toBe(200);
  });

  it('per-organisation overrides replace the plan figure', async () => {
    const org = await fx.org('BUSINESS', { limits: ['--crud-per-min', '2'] });
    expect((await org.client.list()).status).toBe(200);
    expect((await org.client.list()).status).toBe(200);
    const r = await org.client.list();
    expect(r.status).toBe(429);
    expect(r.body.errors![0]!.details).toMatchObject({ scope: 'crud', limitPerMin: 2 });
  });
});

describe('LINKS_PER_MONTH quota', () => {
  it('FREE hard-stops with 402 QE001 and persists nothing; updates still work', async () => {
    const org = await fx.org('FREE');
    await fx.svc.admin('org', 'set-limits', '--org', org.id, '--links-per-month', '2');
    const a = await org.client.save<{ shortCode: string }>({ url: 'https://e.com/1' });
    expect((await org.client.save({ url: 'https://e.com/2' })).status).toBe(200);
    const r = await org.client.save({ url: 'https://e.com/3', shortCode: 'over-quota-1' });
    expect(r.status).toBe(402);
    expect(r.body.errors![0]).toMatchObject({
      code: 'QE001',
      details: { kind: 'quota_exceeded', quota: 'LINKS_PER_MONTH', current: 2, limit: 2, currentPlan: 'FREE', suggestedUpgradeTo: 'PRO' },
    });
    const [{ n }] = (await fx.db.sql<{ n: number }[]>`select count(*)::int as n from links where org_id = ${org.id}`) as unknown as [{ n: number }];
    expect(n).toBe(2);
    expect((await org.client.save({ url: 'https://e.com/1b', shortCode: a.body.response!.shortCode })).status).toBe(200);
  });

  it('FREE never exceeds the cap under concurrent creates', async () => {
    const org = await fx.org('FREE');
    await fx.svc.admin('org', 'set-limits', '--org', org.id, '--links-per-month', '5');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => org.client.save({ url: `https://e.com/c${i}` })));
    expect(results.map((r) => r.body.errors?.[0]?.code ?? r.status).sort()).toEqual([200, 200, 200, 200, 200, ...Array(7).fill('QE001')]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402)).toHaveLength(7);
  });

  it('paid plans keep creating and the usage report shows the overage and its charge', async () => {
    const org = await fx.org('PRO');
    await fx.svc.admin('org', 'set-limits', '--org', org.id, '--links-per-month', '1');
    expect((await org.client.save({ url: 'https://e.com/1' })).status).toBe(200);
    expect((await org.client.save({ url: 'https://e.com/2' })).status).toBe(200);
    expect((await org.client.save({ url: 'https://e.com/3' })).status).toBe(200);
    const usage = await fx.svc.admin<{ links: { used: number; limit: number; overage: number; overageEur: number } }>('usage', '--org', org.id);
    expect(usage.links).toEqual({ used: 3, limit: 1, overage: 2, overageEur: 30 });
  });
});
