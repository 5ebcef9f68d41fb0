import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from './health-server.ts';
import { Readiness } from './readiness.ts';

describe('health server (the ingest worker’s /healthz)', () => {
  let server: HealthServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('answers GET /healthz 200 {"status":"ok"} on a picked port, 404 elsewhere, and stops answering once closed', async () => {
    server = await startHealthServer(0, '127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${server.port}`;
    const ok = await fetch(`${base}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/healthz?probe=1`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(404);
    await server.close();
    server = null;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('answers GET /readyz by the process readiness: 503 starting, 200 ready, 503 unavailable while a check fails, 503 stopping', async () => {
    let postgresUp = true;
    const readiness = new Readiness([{ name: 'postgres', check: async () => (postgresUp ? 1 : Promise.reject(new Error('down'))) }]);
    server = await startHealthServer(0, '127.0.0.1', readiness);
    const ready = async (): Promise<[number, unknown]> => {
      const r = await fetch(`http://127.0.0.1:${server?.port}/readyz`);
      return [r.status, await r.json()];
    };
    expect(await ready()).toEqual([503, { response: { status: 'starting' } }]);
    readiness.markReady();
    expect(await ready()).toEqual([200, { response: { status: 'ready' } }]);
    postgresUp = false;
    await new Promise((r) => setTimeout(r, 1_100)); // past the check's one-second memo
    expect(await ready()).toEqual([503, { response: { status: 'unavailable', unavailable: ['postgres'] } }]);
    readiness.stopping();
    expect(await ready()).toEqual([503, { response: { status: 'stopping' } }]);
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200); // liveness only
  });

  it('refuses to start on a port another listener holds (the process then exits with one message)', async () => {
    server = await startHealthServer(0, '127.0.0.1');
    await expect(startHealthServer(server.port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
  });
});
