// Invariant: starting the dashboard means: wire its Fastify app to the ports the composition root
// opened and listen on DASHBOARD_PORT, with the custom-domain checks running and the on-demand-TLS
// ask endpoint on TLS_ASK_PORT; the closer stops accepting and drains in-flight requests.
// The SPA must have been built (spa-assets.ts): a missing build is a start-up failure naming the
// command that makes it.
import { dashboardPublicUrl, shortLinkBase, type DashboardConfig } from '../shared/config/config.ts';
import { pruneSignInAttempts } from '../shared/accounts/sign-in-throttle.ts';
import type { Logger } from '../shared/log/logger.ts';
import { listenError } from '../shared/runtime/listen-failure.ts';
import type { Backends } from '../shared/runtime/open-backends.ts';
import { SetupError } from '../shared/runtime/startup.ts';
import { linkServiceDeps } from '../shared/links/save-link.ts';
import { PreviewFetchQueue } from '../shared/previews/preview-fetch-queue.ts';
import { refreshDestinationPreview } from '../shared/previews/refresh-destination-preview.ts';
import { buildDashboard } from './build-dashboard.ts';
import { storeAnalyticsReads } from '../shared/analytics/reads/store-analytics-reads.ts';
import { storeAnalyticsPurge } from '../shared/analytics/store/store-analytics-purge.ts';
import { startDomainChecker } from './domain-checks.ts';
import { startTlsAsk } from './tls-ask.ts';
import { isSpaBuilt, SPA_DIST } from './spa-assets.ts';
import type { Readiness } from '../shared/runtime/readiness.ts';

const PRUNE_EVERY_MS = 3600_000;
/** Links made by people are few: a small preview queue (the API's is PREVIEW_FETCH_CONCURRENCY). */
const PREVIEW_CONCURRENCY = 2;
const PREVIEW_FETCHES_PER_HOST_PER_MIN = 30;

export interface RunningDashboard {
  port: number;
  /** The on-demand-TLS ask listener's port (TLS_ASK_PORT). */
  askPort: number;
  url: string;
  close(): Promise<void>;
}

export async function startDashboard(backends: Backends, config: DashboardConfig, o: { logger: Logger; readiness?: Readiness }): Promise<RunningDashboard> {
  if (!isSpaBuilt()) throw new SetupError(`the dashboard's pages are not built (${SPA_DIST} is missing); run \`npm run build:dashboard\``);
  let port = config.DASHBOARD_PORT;
  // Dashboard saves refresh destination previews like the API's: one bounded, fair queue per process.
  const previews = {
    previews: backends.previewStore,
    allowPrivate: config.PREVIEW_ALLOW_PRIVATE,
    onError: (err: unknown, url: string) => o.logger.warn({ url, err }, 'preview fetch failed'),
  };
  const previewQueue = new PreviewFetchQueue({
    concurrency: PREVIEW_CONCURRENCY,
    hostFetchesPerMinute: PREVIEW_FETCHES_PER_HOST_PER_MIN,
    run: (url) => refreshDestinationPreview(previews, url),
    logger: o.logger,
  });
  const publicUrl = (): string => config.DASHBOARD_PUBLIC_URL ?? dashboardPublicUrl({ ...config, DASHBOARD_PORT: port });
  // With DASHBOARD_PORT=0 the origin is known only after listening: resolve it lazily.
  const checker = startDomainChecker({
    sql: backends.db.sql,
    dnsServers: config.DNS_SERVERS,
    defaultHost: new URL(shortLinkBase(config)).hostname,
    now: Date.now,
    onError: (err) => o.logger.warn({ err }, 'domain check failed'),
  });
  const { store } = await backends.analytics();
  const deps = {
    analytics: storeAnalyticsReads(store),
    analyticsPurge: storeAnalyticsPurge(store),
    retentionDays: config.ANALYTICS_RETENTION_DAYS,
    sql: backends.db.sql,
    rateLimiter: backends.rateLimiter,
    get publicUrl() {
      return publicUrl();
    },
    shortLinkBase: shortLinkBase(config),
    signUp: config.DASHBOARD_SIGNUP,
    assetsDir: SPA_DIST,
    trustProxy: config.TRUST_PROXY,
    logger: o.logger,
    now: Date.now,
    domains: checker,
    webhooks: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, secretsKey: config.WEBHOOK_SECRETS_KEY },
    links: linkServiceDeps(backends.db.sql, config, {
      onDestinationSaved: (url, orgId) => void previewQueue.submit(orgId, url),
      linkClicks: backends.linkClicks,
    }),
    readiness: o.readiness,
  };
  const app = await buildDashboard(deps);
  let ask: Awaited<ReturnType<typeof startTlsAsk>>;
  try {
    ask = await startTlsAsk(backends.db.sql, config.TLS_ASK_PORT, config.TLS_ASK_HOST);
  } catch (err) {
    checker.stop();
    previewQueue.close();
    throw err;
  }
  try {
    await app.listen({ port: config.DASHBOARD_PORT, host: config.DASHBOARD_HOST });
  } catch (err) {
    checker.stop();
    previewQueue.close();
    await ask.close();
    await app.close().catch(() => undefined);
    throw listenError(
      { portSetting: 'DASHBOARD_PORT', hostSetting: 'DASHBOARD_HOST', port: config.DASHBOARD_PORT, host: config.DASHBOARD_HOST },
      (err as NodeJS.ErrnoException).code,
    );
  }
  const address = app.server.address();
  if (typeof address === 'object' && address) port = address.port;
  const prune = setInterval(() => void pruneSignInAttempts(backends.db.sql).catch(() => undefined), PRUNE_EVERY_MS);
  prune.unref();
  return {
    port,
    askPort: ask.port,
    url: publicUrl(),
    close: async () => {
      clearInterval(prune);
      checker.stop();
      previewQueue.close();
      await ask.close();
      await app.close();
    },
  };
}
