// Invariant: the API's key check is measured on a real Postgres through the lookup port the API
// is composed with (a counting wrapper around the Postgres lookup): a flood of one unknown key
// costs one query per TTL, the cache holds hashes only, known keys are never cached (revocation
// is immediate), and a key that appears after a negative lookup works once it is announced in
// this process, or after the TTL when it was created elsewhere. The API listens on a real port.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/build-api.ts';
import { HttpClickHouseTransport } from '../../shared/analytics/clickhouse/http-clickhouse-transport.ts';
import { storeAnalyticsReads } from '../../shared/analytics/reads/store-analytics-reads.ts';
import { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { hashApiKey } from '../../shared/keys/api-key.ts';
import { SCOPES } from '../../shared/keys/model/scopes.ts';
import { KeyAuthenticator, NEGATIVE_KEY_TTL_MS } from '../../shared/keys/key-authenticator.ts';
import type { KeyLookup } from '../../shared/keys/principal.ts';
import { announceKeyCreated, onKeyCreated } from '../../shared/keys/key-created.ts';
import { createApiKey, postgresKeyLookup, revokeApiKey } from '../../shared/keys/key-repository.ts';
import { MemoryRateLimiter } from '../../shared/limits/memory-rate-limiter.ts';
import { createOrganization } from '../../shared/orgs/org-repository.ts';
import { createTestDatabase, type TestDatabase } from '../support/servers.ts';
import { linkServiceDeps } from '../../shared/links/save-link.ts';

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
let orgId: string;
let clock = Date.now();
/** Every hash the API asked the key store about, in order. */
const looked: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  const postgres = postgresKeyLookup(db.sql);
  const counting: KeyLookup = {
    findByHash: (keyHash) => {
      looked.push(keyHash);
      return postgres.findByHash(keyHash);
    },
  };
  orgId = (await createOrganization(db.sql, { name: 'cache', plan: 'BUSINESS' })).id;
  app = buildApi({
    sql: db.sql,
    keyLookup: counting,
    rateLimiter: new MemoryRateLimiter(() => clock),
    links: linkServiceDeps(db.sql, { REDIRECT_PORT: 0, SHORT_LINK_BASE_URL: 'https://sho.rt' }, { now: () => clock }),
    publicUrl: () => 'http://localhost',
    now: () => clock,
    // The analytics store is never reached by this suite (only the links list is called).
    analytics: storeAnalyticsReads(new AnalyticsStore(new HttpClickHouseTransport({ url: 'http://127.0.0.1:9' }))),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const list = async (key: string): Promise<{ status: number; body: { errors?: { code: string }[] } }> => {
  const r = await fetch(`${base}/link/external/v1/shortenedUrl`, { headers: { 'x-api-key': key } });
  return { status: r.status, body: (await r.json()) as { errors?: { code: string }[] } };
};
const lookupsOf = (key: string): number => looked.filter((h) => h === hashApiKey(key)).length;

/** Inserts a key row for a chosen value, as the admin CLI of another process would (no announcement). */
async function insertKeyElsewhere(value: string, label: string): Promise<void> {
  await db.sql`insert into api_keys (org_id, label, key_hash, scopes) values (${orgId}, ${label}, ${hashApiKey(value)}, ${[...SCOPES]})`;
}

describe('negative cache of unknown API keys', () => {
  it('100 requests with one unknown key (50 at once, then 50 in a row) cost one lookup, all 401 SML003', async () => {
    const bad = 'slk_flood_of_one_bad_key';
    const concurrent = await Promise.all(Array.from({ length: 50 }, () => list(bad)));
    const sequential = [];
    for (let i = 0; i < 50; i++) sequential.push(await list(bad));
    for (const r of [...concurrent, ...sequential]) {
      expect(r.status).toBe(401);
      expect(r.body.errors?.[0]?.code).toBe('SML003');
    }
    expect(lookupsOf(bad)).toBe(1);
  });

  it('remembers the hash, never the key value', async () => {
    const bad = 'slk_only_its_hash_is_kept';
    await list(bad);
    expect(looked).toContain(hashApiKey(bad));
    expect(looked.some((h) => h.includes(bad))).toBe(false);
  });

  it('asks again after the TTL, so a key created by another process works within 5 s', async () => {
    const value = 'slk_created_elsewhere_after_a_miss';
    expect((await list(value)).status).toBe(401);
    await insertKeyElsewhere(value, 'elsewhere');
    expect((await list(value)).status).toBe(401); // still remembered as unknown
    expect(lookupsOf(value)).toBe(1);
    clock += NEGATIVE_KEY_TTL_MS + 1;
    expect((await list(value)).status).toBe(200);
    expect(lookupsOf(value)).toBe(2);
    expect(NEGATIVE_KEY_TTL_MS).toBeLessThanOrEqual(5_000);
  });

  it('a key created in this process evicts its negative entry at once', async () => {
    const value = 'slk_created_here_after_a_miss';
    expect((await list(value)).status).toBe(401);
    await insertKeyElsewhere(value, 'here');
    announceKeyCreated(hashApiKey(value)); // what createApiKey does after its insert
    expect((await list(value)).status).toBe(200);
  });

  it('createApiKey announces the hash of the key it created', async () => {
    const heard: string[] = [];
    const stop = onKeyCreated((h) => heard.push(h));
    const created = await createApiKey(db.sql, orgId, 'announced');
    stop();
    expect(heard).toEqual([hashApiKey(created.key)]);
  });

  it('known keys are not cached: each request looks the key up, and a revocation applies to the next one', async () => {
    const created = await createApiKey(db.sql, orgId, 'revoke me');
    expect((await list(created.key)).status).toBe(200);
    expect((await list(created.key)).status).toBe(200);
    expect(lookupsOf(created.key)).toBe(2);
    await revokeApiKey(db.sql, orgId, 'revoke me');
    expect((await list(created.key)).status).toBe(401);
  });

  it('is bounded: the least recently used unknown key is dropped first', async () => {
    const lookups: string[] = [];
    const keys = new KeyAuthenticator(
      {
        findByHash: async (h) => {
          lookups.push(h);
          return postgresKeyLookup(db.sql).findByHash(h);
        },
      },
      () => clock,
      { maxEntries: 2 },
    );
    try {
      for (const k of ['slk_a', 'slk_b', 'slk_c', 'slk_c', 'slk_b', 'slk_a']) await expect(keys.authenticate(k)).rejects.toMatchObject({ code: 'SML003' });
      // a, b, c each once; c and b still cached; a was evicted by c and is asked again.
      expect(lookups).toEqual(['slk_a', 'slk_b', 'slk_c', 'slk_a'].map(hashApiKey));
    } finally {
      keys.close();
    }
  });
});
