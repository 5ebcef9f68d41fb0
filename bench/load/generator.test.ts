// The generator's I/O shell against a small in-process HTTP server on loopback: paced sends,
// keep-alive and reconnects, a held-back stretch of answers, failures by kind, timeouts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunConfig, runLoad, TargetUnreachable } from './generator.ts';
import { summarize } from './latency.ts';

let server: Server | null = null;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(null));
  server?.closeAllConnections();
  server = null;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<number> {
  let n = 0;
  server = createServer((req, res) => handler(req, res, n++));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const request = (path: string) => () => `GET ${path} HTTP/1.1\r\nHost: sho.rt\r\n\r\n`;
/** A run against 127.0.0.1:port, GET /a at 100/s for 1 s on 4 connections unless `o` says otherwise. */
const load = (port: number, o: Partial<RunConfig>): ReturnType<typeof runLoad> =>
  runLoad({ target: { tls: false, host: '127.0.0.1', port }, rate: 100, durationMs: 1000, connections: 4, timeoutMs: 5000, nextRequest: request('/a'), ...o });
const redirect = (res: ServerResponse): void => {
  res.writeHead(302, { location: 'https://example.com/' });
  res.end();
};

describe('runLoad', () => {
  it('sends at the rate on kept-alive connections and counts every answer', async () => {
    let connections = 0;
    const port = await serve((_req, res) => redirect(res));
    server!.on('connection', () => connections++);
    const r = await load(port, { rate: 500, durationMs: 2000, connections: 8 });
    expect(r).toMatchObject({ scheduled: 1000, sent: 1000, answered: 1000, interrupted: false });
    expect([...r.statuses]).toEqual([[302, 1000]]);
    expect(r.errors.size).toBe(0);
    expect(r.elapsedMs).toBeGreaterThan(1990);
    expect(r.elapsedMs).toBeLessThan(3000);
    expect(connections).toBe(8);
    expect(r.recorder.series.rps[0]).toBeGreaterThan(350);
    expect(r.recorder.series.rps[0]).toBeLessThan(650);
  });

  it('counts a held-back stretch of answers from the schedule: 1 s without answers shows at p99', async () => {
    const startedAt = Date.now();
    const port = await serve((_req, res) => {
      const t = Date.now() - startedAt;
      if (t >= 600 && t < 1600) setTimeout(() => redirect(res), 1600 - t);
      else redirect(res);
    });
    const r = await load(port, { rate: 500, durationMs: 3000, connections: 16 });
    expect(r.answered).toBe(1500);
    const latency = summarize(r.recorder.latency);
    const service = summarize(r.recorder.service);
    expect(latency.p99Ms).toBeGreaterThan(700);
    expect(latency.p90Ms).toBeGreaterThan(100);
    expect(service.p90Ms).toBeLessThan(50);
  });

  it('reconnects after Connection: close and counts failures by kind', async () => {
    const port = await serve((req, res, n) => {
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-length': '0' });
        return res.end();
      }
      if (n % 10 === 3) return req.socket.destroy();
      if (n % 10 === 5) {
        res.writeHead(302, { location: '/', connection: 'close' });
        return res.end();
      }
      redirect(res);
    });
    let i = 0;
    const r = await load(port, { rate: 400, connections: 8, nextRequest: () => request(i++ % 4 === 0 ? '/missing' : '/a')() });
    expect(r.sent).toBe(400);
    expect(r.answered + (r.errors.get('closed by server') ?? 0) + (r.errors.get('connection reset') ?? 0)).toBe(400);
    expect(r.statuses.get(404)).toBeGreaterThan(50);
    expect(r.errors.get('HTTP 404')).toBe(r.statuses.get(404));
    expect((r.errors.get('closed by server') ?? 0) + (r.errors.get('connection reset') ?? 0)).toBeGreaterThan(10);
    expect(r.statuses.get(302)).toBeGreaterThan(150);
  });

  it('fails an unanswered request after the timeout, and counts what could not be sent', async () => {
    const port = await serve((req, res) => {
      if (req.url !== '/never') redirect(res);
    });
    let i = 0;
    const r = await load(port, { connections: 2, timeoutMs: 300, nextRequest: () => request(i++ < 2 ? '/never' : '/a')() });
    expect(r.errors.get('timeout')).toBe(2);
    expect(r.answered).toBe(98);
    expect(r.scheduled).toBe(100);
    const stuck = await serve(() => {});
    const s = await load(stuck, { durationMs: 500, connections: 1, timeoutMs: 400 });
    // One connection: the first request times out after 400 ms, the next ones after it, and at the
    // deadline (the end of the schedule + the timeout: 900 ms) the one in flight is given up and
    // the rest never leave: 2 or 3 sent (the housekeeping ticks every 100 ms).
    const gaveUp = (s.errors.get('timeout') ?? 0) + (s.errors.get('unanswered at the end') ?? 0);
    expect(s.errors.get('timeout')).toBeGreaterThanOrEqual(1);
    expect(gaveUp).toBe(s.sent);
    expect(s.sent).toBeGreaterThanOrEqual(2);
    expect(s.sent).toBeLessThanOrEqual(3);
    expect(s.errors.get('not sent')).toBe(50 - s.sent);
    expect(s.scheduled).toBe(50);
    expect(s.answered).toBe(0);
  });

  it('refuses to start when the target does not accept connections', async () => {
    const port = await serve(() => {});
    await new Promise((r) => server!.close(r));
    server = null;
    await expect(load(port, { durationMs: 100 })).rejects.toThrow(TargetUnreachable);
  });

  it('stops the schedule when aborted and reports the run as interrupted', async () => {
    const port = await serve((_req, res) => redirect(res));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 500);
    const r = await load(port, { rate: 200, durationMs: 10_000, signal: abort.signal });
    expect(r.interrupted).toBe(true);
    expect(r.answered).toBeGreaterThan(80);
    expect(r.answered).toBeLessThan(200);
    expect(r.scheduled).toBe(r.answered);
    expect(r.errors.size).toBe(0);
  });
});
