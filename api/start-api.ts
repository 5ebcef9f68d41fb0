// Invariant: starting the API means: wire the Fastify app to the ports the composition root
// opened (Postgres, the rate limiter, the analytics store, the preview store) and listen; the
// returned closer stops accepting and drains in-flight requests. Preview refreshes after saves go
// through one bounded, fair PreviewFetchQueue per process.
import { storeAnalyticsReads } from '../shared/analytics/reads/store-analytics-reads.ts';
import { storeAnalyticsPurge } from '../shared/analytics/store/store-analytics-purge.ts';
import type { ApiConfig } from '../shared/config/config.ts';
import { linkServiceDeps } from '../shared/links/save-link.ts';
import { PreviewFetchQueue } from '../shared/previews/preview-fetch-queue.ts';
import { refreshDestinationPreview } from '../shared/previews/refresh-destination-preview.ts';
import { postgresKeyLookup } from '../shared/keys/key-repository.ts';
import type { Logger } from '../shared/log/logger.ts';
import { listenError } from '../shared/runtime/listen-failure.ts';
import type { Backends } from '../shared/runtime/open-backends.ts';
import type { Readiness } from '../shared/runtime/readiness.ts';
import type { Telemetry } from '../shared/telemetry/telemetry.ts';
import { buildApi } from './build-api.ts';

export async function startApi(
  backends: Backends,
  config: ApiConfig,
  o: { logger: Logger; telemetry: Telemetry; readiness?: Readiness },
): Promise<{ port: number; close(): Promise<void> }> {
  const { store } = await backends.analytics();
  const previews = {
    previews: backends.previewStore,
    allowPrivate: config.PREVIEW_ALLOW_PRIVATE,
    onError: (err: unknown, url: string) => o.logger.warn({ url, err }, 'preview fetch failed'),
    telemetry: o.telemetry,
  };
  let port = config.API_PORT;
  const previewQueue = new PreviewFetchQueue({
    concurrency: config.PREVIEW_FETCH_CONCURRENCY,
    hostFetchesPerMinute: config.PREVIEW_FETCHES_PER_HOST_PER_MIN,
    run: (url) => refreshDestinationPreview(previews, url),
    logger: o.logger,
  });
  const app = buildApi({
    sql: backends.db.sql,
    keyLookup: postgresKeyLookup(backends.db.sql),
    rateLimiter: backends.rateLimiter,
    links: linkServiceDeps(backends.db.sql, config, {
      onDestinationSaved: (url, orgId) => void previewQueue.submit(orgId, url),
      linkClicks: backends.linkClicks,
    }),
    trustProxy: config.TRUST_PROXY,
    logger: o.logger,
    telemetry: o.telemetry,
    publicUrl: () => config.API_PUBLIC_URL ?? `http://localhost:${port}`,
    now: Date.now,
    analytics: storeAnalyticsReads(store),
    analyticsPurge: storeAnalyticsPurge(store),
    readiness: o.readiness,
  });
  try {
    await app.listen({ port: config.API_PORT, host: config.API_HOST });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError({ portSetting: 'API_PORT', hostSetting: 'API_HOST', port: config.API_PORT, host: config.API_HOST }, (err as NodeJS.ErrnoException).code);
  }
  const address = app.server.address();
  if (typeof address === 'object' && address) port = address.port;
  return {
    port,
    close: async () => {
      previewQueue.close();
      await app.close();
    },
  };
}
