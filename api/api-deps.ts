// Invariant: the API process receives every backend through this one object, built once at
// start; route code never constructs a client or reads configuration itself.
import type { AnalyticsReads } from '../shared/analytics/reads/analytics-reads.ts';
import type { Sql } from '../shared/db/database.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';

export interface ApiDeps {
  sql: Sql;
  rateLimiter: RateLimiter;
  defaultShortDomain: string;
  logLevel: string;
  now(): number;
  /** Background refresh of a destination's preview metadata after a save that created a link or changed its url. */
  onDestinationSaved?(url: string, orgId: string): void;
  /** The analytics read side (browse, sync, export). */
  analytics: AnalyticsReads;
}
