// Invariant: a process's metrics are served only here, on METRICS_PORT bound to METRICS_HOST
// (loopback by default), never on a public port: GET or HEAD /metrics answers 200 with the
// Prometheus text the `render` callback produced at that moment; anything else is 404, and a
// failing render is 500 with no detail. A taken METRICS_PORT never stops a process from serving:
// it says so in one line and binds the port in the background once it is free (a rolling restart's
// new redirector cluster takes it over when the old one exits). Any other listen error (a host
// that is not this machine's, a privileged port) stops the start with one line naming the setting.
// close() stops it at once, retries included.
import { createServer } from 'node:http';
import { listenError } from './listen-failure.ts';
import { listenOn, type ListeningServer } from './listening-server.ts';

export interface MetricsText {
  contentType: string;
  body: string;
}

export interface MetricsServerOptions {
  port: number;
  host: string;
  render: () => Promise<MetricsText>;
  onError?: (err: unknown) => void;
  /** Where the endpoint says where it serves (info), or that its port is taken (warn, once). */
  log?: { info(message: string): void; warn(message: string): void };
  /** How often a taken port is tried again (ms). */
  retryMs?: number;
}

export interface MetricsServer {
  /** The bound port; null while METRICS_PORT is taken by another process. */
  readonly port: number | null;
  close(): Promise<void>;
}

const RETRY_MS = 1_000;

function metricsHttpServer(render: () => Promise<MetricsText>, onError: (err: unknown) => void) {
  return createServer((req, res) => {
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
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  const retryMs = o.retryMs ?? RETRY_MS;
  let bound: ListeningServer | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const attempt = async (): Promise<void> => {
    const server = await listenOn(metricsHttpServer(o.render, o.onError ?? (() => {})), o.port, o.host);
    if (closed) return server.close();
    bound = server;
    o.log?.info(`metrics on ${o.host}:${server.port}/metrics`);
  };
  const retryLater = (): void => {
    timer = setTimeout(() => {
      if (!closed) attempt().catch(retryLater);
    }, retryMs);
    timer.unref(); // the process's own servers keep it alive, never this
  };

  try {
    await attempt();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE') throw listenError({ portSetting: 'METRICS_PORT', hostSetting: 'METRICS_HOST', port: o.port, host: o.host }, code);
    o.log?.warn(
      `METRICS_PORT ${o.port} is in use; serving without /metrics until it is free (tried again every ${retryMs / 1000} s); set METRICS_PORT to give this process a port of its own`,
    );
    retryLater();
  }
  return {
    get port() {
      return bound?.port ?? null;
    },
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await bound?.close();
    },
  };
}
