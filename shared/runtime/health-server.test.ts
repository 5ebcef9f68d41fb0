import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from './health-server.ts';

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

  it('refuses to start on a port another listener holds (the process then exits with one message)', async () => {
    server = await startHealthServer(0, '127.0.0.1');
    await expect(startHealthServer(server.port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
  });
});
