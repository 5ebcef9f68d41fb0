// Invariant: the API process receives every backend through this one object, built once at
// start; route code never constructs a client or reads configuration itself.
import type { AnalyticsReads } from '../shared/analytics/reads/analytics-reads.ts';
import type { Sql } from '../shared/db/database.ts';
import type { KeyLookup } from '../shared/keys/key-authenticator.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';

export interface ApiDeps {
  sql: Sql;
  /** The API key store (Postgres); the API puts a short negative cache in front of it. */
  keyLookup: KeyLookup;
  rateLimiter: RateLimiter;
  shortLinkBase: string;
  logLevel: string;
  /** The API's public address (configuration, never a request's Host), for the OpenAPI document. */
  publicUrl(): string;
  now(): number;
  /** Background refresh of a destination's preview metadata after a save. */
  onDestinationSaved?(url: string): void;
  /** The analytics read side (browse, sync, export). */
  analytics: AnalyticsReads;
}
