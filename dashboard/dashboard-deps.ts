// Invariant: the dashboard process receives every backend through this one object, built once at
// start; route code never constructs a client or reads configuration itself.
import type { AnalyticsPurge } from '../shared/analytics/store/store-analytics-purge.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Sql } from '../shared/db/database.ts';
import type { LinkServiceDeps } from '../shared/links/save-link.ts';
import type { DomainChecker } from './domain-checks.ts';
import type { AnalyticsReads } from '../shared/analytics/reads/analytics-reads.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';
import type { WebhookSettings } from '../shared/webhooks/webhook-repository.ts';
import type { TrustProxy } from '../shared/net/trusted-proxies.ts';

import type { Readiness } from '../shared/runtime/readiness.ts';

export interface DashboardDeps {
  sql: Sql;
  rateLimiter: RateLimiter;
  /** The dashboard's origin (DASHBOARD_PUBLIC_URL): Origin checks, cookie name, invite links. */
  publicUrl: string;
  /** The origin every default smartLink starts with. */
  shortLinkBase: string;
  /** `open`: the sign-up page creates an account with a new FREE organisation. */
  signUp: 'invite' | 'open';
  /** Where the built SPA is (index.html and assets/). */
  assetsDir: string;
  trustProxy?: TrustProxy;
  logger?: FastifyBaseLogger;
  now(): number;
  /** The one save path's dependencies (linkServiceDeps), as the API and the admin CLI have them. */
  links: LinkServiceDeps;
  /** The API's analytics reads (aggregates, export) over the analytics store. */
  analytics: AnalyticsReads;
  /** ANALYTICS_RETENTION_DAYS: what an organisation without its own retention gets (null: kept for good). */
  retentionDays: number | null;
  /** The purge a link's delete runs when asked to drop its events. */
  analyticsPurge: AnalyticsPurge;
  /** Custom-domain verification: checks a domain on demand (the schedule runs in the background). */
  domains: Pick<DomainChecker, 'checkNow'>;
  /** WEBHOOK_ALLOW_PRIVATE and WEBHOOK_SECRETS_KEY. */
  webhooks: WebhookSettings;
  /** GET /readyz; default: ready, with no dependency check. */
  readiness?: Readiness;
}
