// Invariant: QR images never block redirects. A burst of distinct, uncached QR drawings leaves the
// redirector's event loop free (they are drawn in a worker thread), so redirects served during the
// burst stay fast; HEAD answers without drawing; drawings are rate-limited per client address with
// 429 SML005 and Retry-After, while cached images stay free.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { send } from '../test/support/http-request.ts';
import { seedLink, seedOrg } from '../test/support/seed.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/servers.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { memoryRedirectorPorts } from '../test/support/redirector-ports.ts';

const BURST = 60;
const RENDERS_PER_MINUTE = BURST + 10;
let db: TestDatabase;
let bus: MemoryInvalidationBus;
let server: RedirectorServer;
let port: number;
let org: string;

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  bus = new MemoryInvalidationBus();
  server = await createRedirectorServer({
    sql: db.sql,
    bus,
    ...memoryRedirectorPorts(db.sql),
    hitSink: new MemoryHitSink(),
    config: {
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: 0,
      LINK_CACHE_ENTRIES: 10_000,
      TRUST_PROXY: { kind: 'hops', hops: 0 },
      DEFAULT_SHORT_DOMAIN: 'sho.rt',
      QR_RENDERS_PER_MINUTE: RENDERS_PER_MINUTE,
    },
  });
  port = server.port;
  org = await seedOrg(db.sql, 'BUSINESS');
});

afterAll(async () => {
  await server?.close();
  await bus?.close();
  await db?.drop();
});

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;

async function timedRedirects(code: string, until: () => boolean, atLeast: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < atLeast || !until()) {
    const t = performance.now();
    const r = await send(port, `/${code}`, { host: 'sho.rt' });
    out.push(performance.now() - t);
    expect(r.status).toBe(302);
  }
  return out;
}

describe('QR codes and redirects', () => {
  it(`a burst of ${BURST} uncached PNG drawings does not hold the event loop or slow redirects`, async () => {
    const hot = (await seedLink(db.sql, { orgId: org })).shortCode;
    const codes = await Promise.all(Array.from({ length: BURST }, () => seedLink(db.sql, { orgId: org }).then((l) => l.shortCode)));
    const quiet = monitorEventLoopDelay({ resolution: 5 });
    quiet.enable();
    const baseline = await timedRedirects(hot, () => true, 300);
    quiet.disable();

    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    let done = false;
    const burst = Promise.all(codes.map((c) => send(port, `/${c}/qr.png`, { host: 'sho.rt', timeoutMs: 120_000 }))).finally(() => (done = true));
    const during = await timedRedirects(hot, () => done, 20);
    const images = await burst;
    loop.disable();

    expect(images.map((r) => r.status)).toEqual(codes.map(() => 200));
    expect(images.every((r) => r.body.subarray(1, 4).toString() === 'PNG')).toBe(true);
    const maxLoopMs = loop.max / 1e6;
    const quietLoopMs = quiet.max / 1e6;
    process.stdout.write(
      `\nQR burst: redirect p99 ${p99(baseline).toFixed(1)} ms before, ${p99(during).toFixed(1)} ms during (${during.length} redirects); event loop max delay ${quietLoopMs.toFixed(1)} ms before, ${maxLoopMs.toFixed(1)} ms during\n`,
    );
    // Drawn on the event loop, this burst would hold it for seconds; in the worker the loop
    // stays as free as it was before the burst. Margins are relative to the same run, because a
    // loaded machine delays every process alike.
    expect(maxLoopMs).toBeLessThan(Math.max(500, 3 * quietLoopMs));
    expect(p99(during)).toBeLessThan(Math.max(500, 4 * p99(baseline)));
  }, 180_000);

  it('HEAD answers 200 with the content type and draws nothing', async () => {
    const { shortCode } = await seedLink(db.sql, { orgId: org });
    const before = await drawnCount();
    const head = await send(port, `/${shortCode}/qr.svg`, { host: 'sho.rt', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('image/svg+xml');
    expect(head.body.length).toBe(0);
    expect(await drawnCount()).toBe(before);
    const get = await send(port, `/${shortCode}/qr.svg`, { host: 'sho.rt' });
    expect(get.text).toContain('<svg');
    expect(await drawnCount()).toBe(before + 1);
  });

  it('limits drawings per client address with 429 SML005 and Retry-After; cached images stay free', async () => {
    // The burst above spent most of this address's bucket: draw distinct images until refused.
    let refused: Awaited<ReturnType<typeof send>> | null = null;
    let drawnNow = '';
    for (let i = 0; i < RENDERS_PER_MINUTE + 5 && refused === null; i++) {
      const { shortCode } = await seedLink(db.sql, { orgId: org });
      const r = await send(port, `/${shortCode}/qr.svg`, { host: 'sho.rt' });
      if (r.status === 429) refused = r;
      else drawnNow = shortCode;
    }
    expect(refused).not.toBeNull();
    expect(JSON.parse(refused!.text)).toMatchObject({ errors: [{ code: 'SML005', details: { scope: 'qr_render', limitPerMin: RENDERS_PER_MINUTE } }] });
    expect(refused!.headers['retry-after']).toMatch(/^\d+$/);
    // An image already drawn is still served to the refused address.
    expect((await send(port, `/${drawnNow}/qr.svg`, { host: 'sho.rt' })).status).toBe(200);
  });
});

/** Drawings done by the renderer, read through the process metrics snapshot. */
async function drawnCount(): Promise<number> {
  return server.qrDrawn();
}
