// Invariant: the background refresh is tested end to end: a real local destination server, a
// migrated test database, and a redirector whose cache must pick the new preview up through the
// link invalidations the refresh publishes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryHitSink } from '../analytics/events/memory-hit-sink.ts';
import { createRedirectorServer, type RedirectorServer } from '../../redirector/redirector-server.ts';
import { send, until } from '../../test/support/http-request.ts';
import { seedLink, seedOrg } from '../../test/support/seed.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import type { Invalidation } from '../bus/invalidation-bus.ts';
import { MemoryInvalidationBus } from '../bus/memory-invalidation-bus.ts';
import { effectivePreviewMetadata } from './effective-preview-metadata.ts';
import { loadPreview } from './preview-store.ts';
import { refreshDestinationPreview } from './refresh-destination-preview.ts';

let db: TestDatabase;
let bus: MemoryInvalidationBus;
let published: Invalidation[];
let destination: Server;
let base: string;
let page = { title: 'First title', xfo: '' };
let redirector: RedirectorServer;

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  bus = new MemoryInvalidationBus();
  published = [];
  await bus.subscribe((m) => published.push(m));
  destination = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', ...(page.xfo ? { 'x-frame-options': page.xfo } : {}) });
    res.end(`<html><head><meta property="og:title" content="${page.title}"><meta property="og:image" content="/og.png"></head></html>`);
  });
  await new Promise<void>((r) => destination.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  redirector = await createRedirectorServer({
    sql: db.sql,
    bus,
    redis: null,
    hitSink: new MemoryHitSink(),
    config: { REDIRECT_HOST: '127.0.0.1', REDIRECT_PORT: 0, LINK_CACHE_ENTRIES: 100, TRUST_PROXY: false, DEFAULT_SHORT_DOMAIN: 'sho.rt', REDIS_PREFIX: 'x:' },
  });
});

afterAll(async () => {
  await redirector?.close();
  destination?.closeAllConnections();
  await new Promise((r) => destination?.close(r));
  await bus?.close();
  await db?.drop();
});

describe('effectivePreviewMetadata', () => {
  const link = { enableCustomMetadata: true, customMetadataTitle: 'Custom', customMetadataDescription: null, customMetadataImageUrl: '' };
  const fetched = { title: 'Fetched', description: 'Fetched desc', imageUrl: 'https://i.example/a.png' };
  it('custom values where enabled and set, fetched values otherwise; empty keys absent', () => {
    expect(effectivePreviewMetadata(link, fetched)).toEqual({ title: 'Custom', description: 'Fetched desc', imageUrl: 'https://i.example/a.png' });
    expect(effectivePreviewMetadata({ ...link, enableCustomMetadata: false }, fetched)).toEqual(fetched);
    expect(effectivePreviewMetadata({ ...link, enableCustomMetadata: false }, null)).toEqual({});
  });
});

describe('refreshDestinationPreview', () => {
  it('stores the fetched preview, publishes link invalidations for its codes when it changed, and the redirector serves it', async () => {
    const url = `${base}/article`;
    const org = await seedOrg(db.sql);
    const a = await seedLink(db.sql, { orgId: org, url, cloakEnabled: true });
    const b = await seedLink(db.sql, { orgId: org, url });
    const crawler = { headers: { 'user-agent': 'Twitterbot/1.0' } };
    // Before any fetch: no title, cloaked page frames the destination.
    expect((await send(redirector.port, `/${a.shortCode}`, crawler)).text).not.toContain('First title');
    expect((await send(redirector.port, `/${a.shortCode}`)).status).toBe(200);

    const deps = { sql: db.sql, bus, allowPrivate: true, maxAgeMs: 0 };
    expect(await refreshDestinationPreview(deps, url)).toBe('changed');
    expect(await loadPreview(db.sql, url)).toMatchObject({ title: 'First title', imageUrl: `${base}/og.png`, frameRefused: false });
    expect(published).toEqual(expect.arrayContaining([{ kind: 'link', shortCode: a.shortCode }, { kind: 'link', shortCode: b.shortCode }]));
    await until(async () => (await send(redirector.port, `/${b.shortCode}`, crawler)).text.includes('content="First title"'), 1_000);

    published.length = 0;
    expect(await refreshDestinationPreview(deps, url)).toBe('unchanged');
    expect(published).toEqual([]);

    // The destination starts refusing framing: the cloaked link becomes a plain redirect.
    page = { title: 'First title', xfo: 'SAMEORIGIN' };
    expect(await refreshDestinationPreview(deps, url)).toBe('changed');
    await until(async () => (await send(redirector.port, `/${a.shortCode}`)).status === 302, 1_000);
  });

  it('refuses private destinations unless allowed, keeps earlier values on failure, skips fresh rows, shares in-flight fetches', async () => {
    const url = `${base}/private`;
    expect(await refreshDestinationPreview({ sql: db.sql, bus, maxAgeMs: 0 }, url)).toBe('failed');
    expect(await loadPreview(db.sql, url)).toMatchObject({ title: null, frameRefused: false });

    page = { title: 'Kept', xfo: '' };
    const deps = { sql: db.sql, bus, allowPrivate: true, maxAgeMs: 0 };
    const [x, y] = await Promise.all([refreshDestinationPreview(deps, url), refreshDestinationPreview(deps, url)]);
    expect([x, y]).toEqual(['changed', 'changed']); // one fetch, one answer for both callers
    expect(await refreshDestinationPreview({ sql: db.sql, bus, maxAgeMs: 0 }, url)).toBe('failed');
    expect((await loadPreview(db.sql, url))?.title).toBe('Kept');
    expect(await refreshDestinationPreview({ ...deps, maxAgeMs: 60_000 }, url)).toBe('fresh');
  });
});
