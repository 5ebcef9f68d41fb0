// Invariant: TEST-ONLY. The redirector's embedded-mode ports (no Redis tier, memory click counters
// and rate limiter, usage in Postgres), fresh per call, for tests that build a redirector server
// around their own database, bus and hit sink.
import type { Sql } from '../../shared/db/sql.ts';
import { MemoryRateLimiter } from '../../shared/limits/memory-rate-limiter.ts';
import { MemoryClickCounterStore } from '../../shared/quotas/memory-click-counter-store.ts';
import { MemoryLinkClickCounter } from '../../shared/quotas/memory-link-click-counter.ts';
import { PostgresUsageStore } from '../../shared/quotas/usage-store.ts';

export function memoryRedirectorPorts(sql: Sql) {
  return {
    cacheTier: null,
    clickCounter: new MemoryClickCounterStore(),
    linkClicks: new MemoryLinkClickCounter(),
    rateLimiter: new MemoryRateLimiter(),
    usageStore: new PostgresUsageStore(sql),
  };
}
