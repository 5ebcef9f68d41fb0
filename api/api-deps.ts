// Invariant: the API process receives every backend through this one object, built once at
// start; route code never constructs a client or reads configuration itself.
import type { AnalyticsReads } from '../shared/analytics/reads/analytics-reads.ts';
import type { AnalyticsPurge } from '../shared/analytics/store/store-analytics-purge.ts';
import type { Sql } from '../shared/db/database.ts';
import type { KeyLookup } from '../shared/keys/principal.ts';
import type { LinkServiceDeps } from '../shared/links/save-link.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';
import type { TrustProxy } from '../shared/net/trusted-proxies.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Telemetry } from '../shared/telemetry/telemetry.ts';

import type { Readiness } from '../shared/runtime/readiness.ts';

export interface ApiDeps {
  sql: Sql;
  /** The API key store (Postgres); the API puts a short negative cache in front of it. */
  keyLookup: KeyLookup;
  rateLimiter: RateLimiter;
  /** What link saves and reads need (linkServiceDeps): built as the admin CLI builds them. */
  links: LinkServiceDeps;
  /** Trusted proxies (TRUST_PROXY) for request.ip; default: none. */
  trustProxy?: TrustProxy;
  /** The process's pino logger (request logs carry reqId); none: the API logs nothing. */
  logger?: FastifyBaseLogger;
  /** Where rate-limit rejections are counted; default: nowhere. */
  telemetry?: Telemetry;
  /** The API's public address (configuration, never a request's Host), for the OpenAPI document. */
  publicUrl(): string;
  now(): number;
  /** The analytics read side (browse, sync, export). */
  analytics: AnalyticsReads;
  /** The analytics purge (POST /analytics/events/purge, and delete with purgeAnalytics); none: both answer 503. */
  analyticsPurge?: AnalyticsPurge;
  /** GET /readyz; default: ready, with no dependency check. */
  readiness?: Readiness;
}
