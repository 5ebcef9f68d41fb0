// Invariant: a visitor's IP address, and the salt of the visitor hash, are never stored. The
// embedded service (`npm start`: its Postgres, chDB and spools all under DATA_DIR; the visitor
// salts in the machine's Redis, where this test can read them) serves clicks from known addresses
// (through X-Forwarded-For, TRUST_PROXY on), stores them and counts their visitors, and stops;
// then no file under DATA_DIR holds the addresses, as text or (IPv6) as their 16 raw bytes, or
// the salts, as hex or raw bytes. A marker sent in the Referer, which is stored, is found by the
// same search: the search sees what the engine writes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { send, until } from './support/http-request.ts';
import { embeddedClusterDir } from '../shared/db/embedded-postgres-home.ts';
import { apiClient, removeDir, startService, tempDataDir } from './support/service-process.ts';
import { deleteRedisPrefix, redisTestPrefix } from './support/servers.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const IPV4 = '81.2.69.160';
const IPV6 = '2a02:26f0:10e:7::1f';
/** The same IPv6 address as 16 bytes (how a binary column would hold it). */
const IPV6_BYTES = Buffer.from('2a0226f0010e0007000000000000001f', 'hex');
const MARKER = 'referrer-marker-7f3c9a';

const dataDir = tempDataDir();
const redisUrl = inject('realRedisUrl') ?? 'redis://127.0.0.1:6379';
const prefix = redisTestPrefix();
afterAll(async () => {
  removeDir(dataDir);
  await deleteRedisPrefix(redisUrl, prefix);
});

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/** Files under DATA_DIR (and the embedded Postgres cluster, kept elsewhere under a private folder) holding any of `needles`. */
function holding(needles: Record<string, Buffer>): string[] {
  const cluster = embeddedClusterDir(dataDir);
  const roots = cluster.startsWith(`${dataDir}/`) ? [dataDir] : [dataDir, cluster];
  const out: string[] = [];
  for (const path of roots.flatMap((r) => [...files(r)])) {
    const bytes = readFileSync(path);
    for (const [name, needle] of Object.entries(needles)) if (bytes.includes(needle)) out.push(`${name} in ${path}`);
  }
  return out;
}

describe('no address stored', () => {
  it('clicks from known addresses leave them, and the visitor salts, in no file of DATA_DIR (Postgres, chDB, spools)', async () => {
    const svc = await startService({ DATA_DIR: dataDir, TRUST_PROXY: 'true', ANALYTICS_SYNC_SETTLE_MS: '50', REDIS_URL: redisUrl, REDIS_PREFIX: prefix });
    try {
      const key = /slk_[A-Za-z0-9_-]+/.exec(svc.output())?.[0];
      expect(key, svc.output()).toBeDefined();
      const client = apiClient(svc.api, key!);
      const saved = await client.save<{ shortCode: string }>({ url: 'https://example.com/private', shortCode: 'no-address' });
      expect(saved.status).toBe(200);
      const port = Number(new URL(svc.redirect).port);
      for (const address of [IPV4, IPV6, IPV4]) {
        const r = await send(port, '/no-address', {
          host: 'sho.rt',
          headers: { 'user-agent': CHROME, 'x-forwarded-for': address, referer: `https://${MARKER}.example/page` },
        });
        expect(r.status).toBe(302);
      }
      const events = async () =>
        (
          await client.get<{ data: { countryCode: string | null; referrerDomain: string | null }[] }>(
            `/link/external/v1/analytics/events?since=2000-01-01T00:00:00Z`,
          )
        ).body.response?.data ?? [];
      await until(async () => (await events()).length === 3, 20_000, 200);
      // The addresses were used (the country comes from them) and the referrer was stored.
      expect((await events()).map((e) => e.referrerDomain)).toEqual([`${MARKER}.example`, `${MARKER}.example`, `${MARKER}.example`]);
      expect((await events()).filter((e) => e.countryCode !== null).length).toBeGreaterThan(0);
      // Two people (one address twice, one once): two visitors today.
      const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(Date.now() + offset * 86_400_000));
      const visitors = await client.get<{ total: number }>(`/link/external/v1/analytics/aggregates?groupBy=time&metric=visitors&from=${day(-1)}&to=${day(1)}`);
      expect(visitors.body.response?.total).toBe(2);
    } finally {
      expect(await svc.stop('SIGTERM')).toBe(0);
    }
    expect(holding({ marker: Buffer.from(MARKER) }).length).toBeGreaterThan(0);
    expect(holding({ ipv4: Buffer.from(IPV4), ipv6: Buffer.from(IPV6), ipv6Bytes: IPV6_BYTES })).toEqual([]);
    const redis = new Redis(redisUrl);
    try {
      const keys = await redis.keys(`${prefix}visitor-salt:*`);
      expect(keys.length).toBeGreaterThan(0);
      const salts: Record<string, Buffer> = {};
      for (const k of keys) {
        const hex = (await redis.get(k)) ?? '';
        expect(hex).toMatch(/^[0-9a-f]{64}$/);
        expect(await redis.ttl(k)).toBeLessThanOrEqual(48 * 3600);
        salts[`${k} (hex)`] = Buffer.from(hex);
        salts[`${k} (bytes)`] = Buffer.from(hex, 'hex');
      }
      expect(holding(salts)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 120_000);
});
