// Invariant: this process checks the custom domains that are due (PENDING, next_check_at passed)
// every DOMAIN_CHECK_TICK_MS, a few at a time, through the resolvers of DNS_SERVERS; a claim moves
// a domain's next check first, so processes never check one domain twice at once, and a failed
// check is retried at its next turn. "Check now" runs one check at once, whatever the schedule.
import type { Sql } from '../shared/db/database.ts';
import { checkDns, claimDueChecks, dnsResolver, type DomainState, recordCheck } from '../shared/domains/domain-verification.ts';

export const DOMAIN_CHECK_TICK_MS = 15_000;

export interface DomainChecker {
  checkNow(domain: DomainState): Promise<DomainState>;
  /** One round of due checks (the timer's work; tests call it). */
  tick(): Promise<number>;
  stop(): void;
}

export function startDomainChecker(o: {
  sql: Sql;
  dnsServers: readonly string[];
  defaultHost: string;
  now(): number;
  onError(err: unknown): void;
  tickMs?: number;
}): DomainChecker {
  const resolver = dnsResolver(o.dnsServers);
  const checkNow = async (d: DomainState): Promise<DomainState> => {
    if (d.token === null) return d;
    return recordCheck(o.sql, d, await checkDns(resolver, d.host, d.token, o.defaultHost), o.now());
  };
  let running: Promise<number> | null = null;
  const tick = (): Promise<number> =>
    (running ??= (async () => {
      try {
        const due = await claimDueChecks(o.sql);
        await Promise.all(due.map((d) => checkNow(d).catch(o.onError)));
        return due.length;
      } finally {
        running = null;
      }
    })());
  const timer = setInterval(() => void tick().catch(o.onError), o.tickMs ?? DOMAIN_CHECK_TICK_MS);
  timer.unref();
  return { checkNow, tick, stop: () => clearInterval(timer) };
}
