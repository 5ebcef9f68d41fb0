// Invariant: one benchmark target per process, started pinned by the orchestrator: either a bare
// uWS app answering every request with a fixed 302 (the speed limit), or one redirector
// (createRedirectorServer, NODE_ENV=production) configured from the environment through the
// redirector's own config schema. It prints `READY <port>` once it listens and stops on SIGTERM.
import { Redis } from 'ioredis';
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { loadConfigOrExit, redirectorSchema } from '../shared/config/config.ts';
import { connect } from '../shared/db/database.ts';
import { createRedirectorServer } from '../redirector/redirector-server.ts';
import { nativeUws } from '../redirector/uws-native.ts';

const mode = process.argv[2];
const out = (m: string): void => void process.stdout.write(`${m}\n`);

if (mode === 'bare') {
  const uws = nativeUws();
  const app = uws.App().any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('302 Found').writeHeader('Location', 'https://example.com/landing?utm_source=bench').writeHeader('Cache-Control', 'private, max-age=0').end();
    });
  });
  app.listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    out(`READY ${uws.us_socket_local_port(socket)}`);
  });
  process.once('SIGTERM', () => process.exit(0));
} else if (mode === 'redirector') {
  const config = loadConfigOrExit(redirectorSchema);
  const sql = connect(config.DATABASE_URL!, 8);
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL) : null;
  const bus = new MemoryInvalidationBus();
  // The analytics write buffer is another component: hits are counted and dropped here, so the
  // numbers measure the redirect path itself (the hand-off is an O(1) push either way).
  const sink: HitSink = { push: () => {} };
  const server = await createRedirectorServer({ sql, bus, redis, config, hitSink: sink, log: (m) => process.stderr.write(`[bench redirector] ${m}\n`) });
  out(`READY ${server.port}`);
  process.once('SIGTERM', () => {
    void server.close().finally(async () => {
      redis?.disconnect();
      await sql.end({ timeout: 1 });
      process.exit(0);
    });
  });
} else {
  process.stderr.write('usage: bench-server.ts bare|redirector\n');
  process.exit(2);
}
