// Invariant: a process's metrics are served only here, on METRICS_PORT bound to METRICS_HOST
// (loopback by default), never on a public port: GET or HEAD /metrics answers 200 with the
// Prometheus text the `render` callback produced at that moment; anything else is 404, and a
// failing render is 500 with no detail. close() stops it at once.
import { createServer } from 'node:http';
import { listenOn, type ListeningServer } from './listening-server.ts';

export interface MetricsText {
  contentType: string;
  body: string;
}

export type MetricsServer = ListeningServer;

export async function startMetricsServer(
  port: number,
  host: string,
  render: () => Promise<MetricsText>,
  onError: (err: unknown) => void = () => {},
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const head = req.method === 'HEAD';
    if (path !== '/metrics' || (req.method !== 'GET' && !head)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(head ? undefined : 'not found\n');
      return;
    }
    render().then(
      (m) => {
        res.writeHead(200, { 'content-type': m.contentType, 'cache-control': 'no-store' });
        res.end(head ? undefined : m.body);
      },
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(head ? undefined : 'metrics unavailable\n');
      },
    );
  });
  return listenOn(server, port, host);
}
