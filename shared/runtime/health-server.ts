// Invariant: a process without an HTTP listener of its own (the ingest worker) answers GET /healthz
// and GET /readyz on a small node:http server. /healthz: 200 {"status":"ok"} while the
// process runs (it reads no state: the process is up and its event loop turns). /readyz: the
// process's Readiness (readiness.ts). Anything else is 404. close() stops it at once.
import { createServer } from 'node:http';
import { listenOn, type ListeningServer } from './listening-server.ts';
import { Readiness } from './readiness.ts';

export type HealthServer = ListeningServer;

export async function startHealthServer(port: number, host: string, readiness: Readiness = Readiness.ready()): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const method = req.method === 'GET' || req.method === 'HEAD';
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (method && path === '/healthz') send(200, '{"status":"ok"}');
    else if (method && path === '/readyz')
      void readiness.answer().then(
        (a) => send(a.status, a.body),
        () => send(503, '{"response":{"status":"unavailable"}}'),
      );
    else send(404, '{"status":"not found"}');
  });
  return listenOn(server, port, host);
}
