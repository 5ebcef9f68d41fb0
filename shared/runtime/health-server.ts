// Invariant: a process without an HTTP listener of its own (the ingest worker) answers
// GET /healthz on a small node:http server: 200 {"status":"ok"} while the process runs. It reads
// no state, so it says only that the process is up and its event loop turns; anything else is 404.
// close() stops it at once (shutdown closes it first, so a stopping process reads as unhealthy).
import { createServer } from 'node:http';
import { listenOn, type ListeningServer } from './listening-server.ts';

export type HealthServer = ListeningServer;

export async function startHealthServer(port: number, host: string): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const ok = path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD');
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json', connection: 'close' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(ok ? { status: 'ok' } : { status: 'not found' }));
  });
  return listenOn(server, port, host);
}
