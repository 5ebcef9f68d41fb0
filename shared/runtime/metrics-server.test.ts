// Invariant: a taken METRICS_PORT is said once and taken over once free; a host that is not this
// machine's stops the start naming METRICS_HOST; close() stops the retries too.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { send, until } from '../../test/support/http-request.ts';
import { freePort } from '../net/free-port.ts';
import { startMetricsServer } from './metrics-server.ts';
import { SetupError } from './startup.ts';

const render = async () => ({ contentType: 'text/plain; version=0.0.4', body: 'up 1\n' });

async function hold(port: number): Promise<Server> {
  const s = createServer().listen(port, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  return s;
}

function lines() {
  const info: string[] = [];
  const warn: string[] = [];
  return { info, warn, log: { info: (m: string) => void info.push(m), warn: (m: string) => void warn.push(m) } };
}

describe('metrics endpoint', () => {
  it('serves GET /metrics on a free port and says where', async () => {
    const port = await freePort();
    const l = lines();
    const m = await startMetricsServer({ port, host: '127.0.0.1', render, log: l.log });
    try {
      expect(m.port).toBe(port);
      expect(l.info).toEqual([`metrics on 127.0.0.1:${port}/metrics`]);
      const r = await send(port, '/metrics');
      expect([r.status, r.text]).toEqual([200, 'up 1\n']);
      expect((await send(port, '/other')).status).toBe(404);
    } finally {
      await m.close();
    }
  });

  it('on a taken port: starts anyway, warns once, and binds the port when its holder lets go', async () => {
    const port = await freePort();
    const holder = await hold(port);
    const l = lines();
    const m = await startMetricsServer({ port, host: '127.0.0.1', render, log: l.log, retryMs: 50 });
    try {
      expect(m.port).toBeNull();
      expect(l.warn).toEqual([
        `METRICS_PORT ${port} is in use; serving without /metrics until it is free (tried again every 0.05 s); set METRICS_PORT to give this process a port of its own`,
      ]);
      await new Promise((r) => setTimeout(r, 300)); // several retries while held: still one line
      expect([l.warn.length, l.info.length, m.port]).toEqual([1, 0, null]);
      await new Promise<void>((r) => holder.close(() => r()));
      await until(() => m.port === port, 3_000, 20);
      expect(l.info).toEqual([`metrics on 127.0.0.1:${port}/metrics`]);
      expect((await send(port, '/metrics')).text).toBe('up 1\n');
    } finally {
      holder.close();
      await m.close();
    }
  });

  it('close() while the port is taken stops the retries: the port stays free for others', async () => {
    const port = await freePort();
    const holder = await hold(port);
    const m = await startMetricsServer({ port, host: '127.0.0.1', render, retryMs: 50 });
    await m.close();
    await new Promise<void>((r) => holder.close(() => r()));
    await new Promise((r) => setTimeout(r, 300));
    expect(m.port).toBeNull();
    const again = await hold(port); // would fail with EADDRINUSE had a retry bound it
    again.close();
  });

  it('a METRICS_HOST that is not an address of this machine stops the start, naming it', async () => {
    const err = await startMetricsServer({ port: 0, host: '192.0.2.1', render }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SetupError);
    expect((err as Error).message).toBe('METRICS_HOST 192.0.2.1 is not an address of this machine; set METRICS_HOST');
  });
});
