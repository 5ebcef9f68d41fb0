// Invariant: one benchmark target per process, started pinned by the orchestrator: either a bare
// uWS app answering every request with a fixed 302 (the speed limit), or one redirector
// (createRedirectorServer, NODE_ENV=production) over the ports the composition root opens from
// the environment, validated by the redirector's own config schema. It prints `READY <port>` once
// it listens (a redirector: `READY <port> <metrics port>`, its registry on METRICS_PORT) and
// stops on SIGTERM.
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import { loadConfigOrExit, redirectorSchema } from '../shared/config/config.ts';
import { startMetricsServer } from '../shared/runtime/metrics-server.ts';
import { openBackends } from '../shared/runtime/open-backends.ts';
import { createProcessMetrics } from '../shared/runtime/prometheus-metrics.ts';
import { createRedirectorServer } from '../redirector/create-redirector.ts';
import { createLogger } from '../shared/log/logger.ts';
import { nativeUws } from '../redirector/uws-native.ts';

const mode = process.argv[2];
const out = (m: string): void => void process.stdout.write(`${m}\n`);

if (mode === 'bare') {
  const uws = nativeUws();
  const app = uws.App().any('/*', (res) => {
    res.cork(() => {
      res
        .writeStatus('302 Found')
        .writeHeader('Location', 'https://example.com/landing?utm_source=bench')
        .writeHeader('Cache-Control', 'private, max-age=0')
        .end();
    });
  });
  app.listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    out(`READY ${uws.us_socket_local_port(socket)}`);
  });
  process.once('SIGTERM', () => process.exit(0));
} else if (mode === 'redirector') {
  const config = loadConfigOrExit(redirectorSchema);
  const backends = await openBackends(config, { poolSize: 8 });
  const metrics = createProcessMetrics();
  // The analytics write buffer is another component: hits are counted and dropped here, so the
  // numbers measure the redirect path itself (the hand-off is an O(1) push either way).
  const sink: HitSink = { push: () => {}, metrics: () => ({ queueDepth: 0, lastFlushLatencyMs: 0 }) };
  const server = await createRedirectorServer({
    sql: backends.db.sql,
    bus: backends.bus,
    cacheTier: backends.cacheTier,
    clickCounter: backends.clickCounter,
    linkClicks: backends.linkClicks,
    rateLimiter: backends.rateLimiter,
    usageStore: backends.usageStore,
    hitSink: sink,
    config,
    metricsRegistry: metrics.registry,
    logger: createLogger('bench-redirector', 'info'),
  });
  const metricsServer = await startMetricsServer({ port: config.METRICS_PORT, host: config.METRICS_HOST, render: metrics.render });
  out(`READY ${server.port} ${metricsServer.port}`);
  process.once('SIGTERM', () => {
    void server
      .close()
      .then(backends.close)
      .then(metricsServer.close)
      .finally(() => process.exit(0));
  });
} else {
  process.stderr.write('usage: bench-server.ts bare|redirector\n');
  process.exit(2);
}
