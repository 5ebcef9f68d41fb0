// Invariant: starting the API means: build the Fastify app on the given backends and listen; the
// returned closer stops accepting and drains in-flight requests.
import type { Backends } from '../shared/runtime/backends.ts';
import type { ApiDeps } from './api-deps.ts';
import { buildApi } from './build-api.ts';

export interface ApiOptions {
  port: number;
  host: string;
  defaultShortDomain: string;
  logLevel: string;
  onDestinationSaved?: ApiDeps['onDestinationSaved'];
  analytics?: ApiDeps['analytics'];
}

export async function startApi(backends: Backends, opts: ApiOptions): Promise<{ port: number; close(): Promise<void> }> {
  const app = buildApi({
    sql: backends.db.sql,
    bus: backends.bus,
    rateLimiter: backends.rateLimiter,
    defaultShortDomain: opts.defaultShortDomain,
    logLevel: opts.logLevel,
    now: Date.now,
    onDestinationSaved: opts.onDestinationSaved,
    analytics: opts.analytics,
  });
  await app.listen({ port: opts.port, host: opts.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return { port, close: () => app.close() };
}
