// Invariant: the background refresh is tested end to end: a real local destination server, a
// migrated test database, the outbox relay, and a redirector whose cache must pick the new
// preview up through the link invalidations the refresh queues.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedirectorServer, type RedirectorServer } from '../redirector/create-redirector.ts';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import type { Invalidation } from '../shared/bus/invalidation-bus.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { OutboxRelay } from '../shared/bus/outbox-relay.ts';
import { PostgresPreviewStore } from '../shared/previews/preview-store.ts';
import { refreshDestinationPreview } from '../shared/previews/refresh-destination-preview.ts';
import { send, until } from './support/http-request.ts';
import { seedLink, seedOrg } from './support/seed.ts';
import { createTestDatabase, type TestDatabase } from './support/servers.ts';
import { memoryRedirectorPorts } from './support/redirector-ports.ts';

let db: TestDatabase;
let bus: MemoryInvalidationBus;
let published: Invalidation[];
let destination: Server;
let base: string;
let page = { title: 'First title', xfo: '' };
let redirector: RedirectorServer;
let relay: OutboxRelay;

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  bus = new MemoryInvalidationBus();
  published = [];
  await bus.subscribe((m) => published.push(m));
  relay = new OutboxRelay({ sql: db.sql, bus });
  await relay.start();
  destination = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', ...(page.xfo ? { 'x-frame-options': page.xfo } : {}) });
    res.end(`<html><head><meta property="og:title" content="${page.title}"><meta property="og:image" content="/og.png"></head></html>`);
  });
  await new Promise<void>((r) => destination.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  redirector = await createRedirectorServer({
    sql: db.sql,
    bus,
    ...memoryRedirectorPorts(db.sql),
    hitSink: new MemoryHitSink(),
    config: { REDIRECT_HOST: '127.0.0.1', REDIRECT_PORT: 0, LINK_CACHE_ENTRIES: 100, TRUST_PROXY: { kind: 'hops', hops: 0 }, DEFAULT_SHORT_DOMAIN: 'sho.rt' },
  });
});

afterAll(async () => {
  await redirector?.close();
  await relay?.stop();
  destination?.closeAllConnections();
  await new Promise((r) => destination?.close(r));
  await bus?.close();
  await db?.drop();
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

    const deps = { previews: new PostgresPreviewStore(db.sql), allowPrivate: true, maxAgeMs: 0 };
    expect(await refreshDestinationPreview(deps, url)).toBe('changed');
    await relay.flush();
    expect(await new PostgresPreviewStore(db.sql).load(url)).toMatchObject({ title: 'First title', imageUrl: `${base}/og.png`, frameRefused: false });
    expect(published).toEqual(
      expect.arrayContaining([
        { kind: 'link', shortCode: a.shortCode },
        { kind: 'link', shortCode: b.shortCode },
      ]),
    );
    await until(async () => (await send(redirector.port, `/${b.shortCode}`, crawler)).text.includes('content="First title"'), 1_000);

    published.length = 0;
    expect(await refreshDestinationPreview(deps, url)).toBe('unchanged');
    await relay.flush();
    expect(published).toEqual([]);

    // The destination starts refusing framing: the cloaked link becomes a plain redirect.
    page = { title: 'First title', xfo: 'SAMEORIGIN' };
    expect(await refreshDestinationPreview(deps, url)).toBe('changed');
    await until(async () => (await send(redirector.port, `/${a.shortCode}`)).status === 302, 1_000);
  });

  it('refuses private destinations unless allowed, keeps earlier values on failure, skips fresh rows, shares in-flight fetches', async () => {
    const url = `${base}/private`;
    expect(await refreshDestinationPreview({ previews: new PostgresPreviewStore(db.sql), maxAgeMs: 0 }, url)).toBe('failed');
    expect(await new PostgresPreviewStore(db.sql).load(url)).toMatchObject({ title: null, frameRefused: false });

    page = { title: 'Kept', xfo: '' };
    const deps = { previews: new PostgresPreviewStore(db.sql), allowPrivate: true, maxAgeMs: 0 };
    const [x, y] = await Promise.all([refreshDestinationPreview(deps, url), refreshDestinationPreview(deps, url)]);
    expect([x, y]).toEqual(['changed', 'changed']); // one fetch, one answer for both callers
    expect(await refreshDestinationPreview({ previews: new PostgresPreviewStore(db.sql), maxAgeMs: 0 }, url)).toBe('failed');
    expect((await new PostgresPreviewStore(db.sql).load(url))?.title).toBe('Kept');
    expect(await refreshDestinationPreview({ ...deps, maxAgeMs: 60_000 }, url)).toBe('fresh');
  });

  it('counts every refresh once by outcome through the Telemetry port (shared in-flight fetches count once)', async () => {
    const url = `${base}/counted`;
    page = { title: 'Counted', xfo: '' };
    const metrics = createProcessMetrics();
    const deps = { previews: new PostgresPreviewStore(db.sql), allowPrivate: true, maxAgeMs: 0, telemetry: metrics.telemetry };
    await Promise.all([refreshDestinationPreview(deps, url), refreshDestinationPreview(deps, url)]);
    await refreshDestinationPreview(deps, url);
    await refreshDestinationPreview({ ...deps, allowPrivate: false }, url);
    await refreshDestinationPreview({ ...deps, maxAgeMs: 60_000 }, url);
    const text = await metrics.registry.metrics();
    const count = (outcome: string): number =>
      Number(new RegExp(`^shortlink_preview_fetches_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect({ changed: count('changed'), unchanged: count('unchanged'), failed: count('failed'), fresh: count('fresh') }).toEqual({
      changed: 1,
      unchanged: 1,
      failed: 1,
      fresh: 1,
    });
  });
});
