// Invariant: the on-demand-TLS `ask` endpoint (Caddy's on_demand_tls ask): GET /ask?domain=<host>
// answers 200 only when <host> is an ACTIVE custom domain, 404 otherwise, so a certificate is
// never requested for a host nobody verified. It listens on TLS_ASK_PORT (internal: never
// published), answers nothing else, and reads only the domains table.
import { createServer, type Server } from 'node:http';
import type { Sql } from '../shared/db/database.ts';
import { findActiveDomainByHost } from '../shared/domains/domain-repository.ts';
import { normalizeHost } from '../shared/domains/host-name.ts';
import { listenError } from '../shared/runtime/listen-failure.ts';

export async function startTlsAsk(sql: Sql, port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://ask.invalid');
    if (req.method !== 'GET' || url.pathname !== '/ask') {
      res.writeHead(404).end();
      return;
    }
    const domain = normalizeHost(url.searchParams.get('domain') ?? '');
    if (domain === '') {
      res.writeHead(404).end();
      return;
    }
    findActiveDomainByHost(sql, domain).then(
      (d) => res.writeHead(d ? 200 : 404, { 'content-type': 'text/plain' }).end(d ? 'ok' : 'unknown'),
      () => res.writeHead(503).end(),
    );
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(listenError({ portSetting: 'TLS_ASK_PORT', hostSetting: 'TLS_ASK_HOST', port, host }, err.code)),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
