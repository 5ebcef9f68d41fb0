// Invariant: `npm start` runs the whole service in this one process: the API on API_PORT, the
// redirector on REDIRECT_PORT, and the analytics pipeline, over the embedded backends under
// DATA_DIR unless server URLs are configured. SIGTERM stops the servers first and the stores
// last, so nothing is lost or corrupted.
import uWS from 'uWebSockets.js';
import { startApi } from '../api/start-api.ts';
import { loadConfigOrExit, startSchema } from '../shared/config/config.ts';
import { ensureDemoOrganization } from '../shared/orgs/demo-bootstrap.ts';
import { openBackends } from '../shared/runtime/backends.ts';
import { onShutdown, type Closer } from '../shared/runtime/shutdown.ts';

const config = loadConfigOrExit(startSchema);
const debug = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
const log = (m: string) => process.stderr.write(`[start] ${m}\n`);
const closers: Closer[] = [];

const backends = await openBackends(config, debug ? (m) => log(`postgres: ${m}`) : () => {});
closers.push(backends.close);
log(config.DATABASE_URL ? 'Postgres: DATABASE_URL' : `Postgres: embedded in ${config.DATA_DIR}/postgres`);

const api = await startApi(backends, {
  port: config.API_PORT,
  host: config.API_HOST,
  defaultShortDomain: config.DEFAULT_SHORT_DOMAIN,
  logLevel: config.LOG_LEVEL,
});
closers.push(api.close);

// Redirector placeholder until the uWS redirector lands: liveness only.
let listenSocket: uWS.us_listen_socket | false = false;
const redirector = uWS.App().get('/healthz', (res) => {
  res.cork(() => res.writeHeader('content-type', 'application/json').end('{"response":{"status":"ok"}}'));
});
await new Promise<void>((resolve, reject) =>
  redirector.listen(config.REDIRECT_HOST, config.REDIRECT_PORT, (socket) => ((listenSocket = socket) ? resolve() : reject(new Error(`cannot listen on ${config.REDIRECT_PORT}`)))),
);
closers.push(async () => {
  if (listenSocket) uWS.us_listen_socket_close(listenSocket);
});

log(`API on http://localhost:${api.port}, redirector on http://localhost:${config.REDIRECT_PORT}`);
const demo = await ensureDemoOrganization(backends.db.sql);
if (demo) {
  process.stdout.write(
    [
      '',
      `Demo organisation ${demo.orgId} created. Its API key (shown once):`,
      `  ${demo.key}`,
      'Try:',
      `  curl -s -X POST http://localhost:${api.port}/link/external/v1/shortenedUrl/save \\`,
      `    -H 'X-API-KEY: ${demo.key}' -H 'Content-Type: application/json' \\`,
      `    -d '{"url":"https://example.com/hello","utmSource":"readme"}'`,
      '',
    ].join('\n'),
  );
}
onShutdown(closers, log);
