// Invariant: a custom domain added on the dashboard (or by `domain add --verify`) is PENDING with
// a random token and does not serve: `active` stays false, so every read that serves a domain
// (save, smartLink, redirects, the redirector's directory) ignores it. It becomes ACTIVE (and
// active) when the TXT record `_shortlink-challenge.<host>` holds `shortlink-verify=<token>`, found
// through the resolvers of DNS_SERVERS; checks run every minute for the first hour, then hourly,
// and a domain unverified after 7 days is FAILED (a check on demand may still verify it). A host
// serves one organisation at most: verification never takes a host another organisation serves.
// Each check is claimed by moving its next_check_at first (FOR UPDATE SKIP LOCKED), so several
// dashboard processes never check one domain at once; a status change commits with the domain's
// invalidation in the outbox.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import type { Sql } from '../db/database.ts';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.ts';
import { AppError } from '../errors/app-error.ts';
import { quotaExceeded } from '../orgs/plan-errors.ts';
import type { Organization } from '../orgs/organization.ts';
import { suggestLimitUpgrade } from '../orgs/plans.ts';
import { parseDomainHost } from './host-name.ts';

export const CHALLENGE_PREFIX = '_shortlink-challenge.';
export const CHALLENGE_VALUE_PREFIX = 'shortlink-verify=';
const FIRST_HOUR_MS = 3600_000;
const EVERY_MINUTE_MS = 60_000;
const HOURLY_MS = 3600_000;
export const VERIFY_FOR_MS = 7 * 24 * 3600_000;

export type DomainStatus = 'PENDING' | 'ACTIVE' | 'FAILED';

export interface DomainState {
  id: number;
  orgId: string;
  host: string;
  status: DomainStatus;
  isPrimary: boolean;
  token: string | null;
  createdAt: string;
  lastCheckedAt: string | null;
  nextCheckAt: string | null;
  verifiedAt: string | null;
  lastCheckError: string | null;
  pointsAtDefault: boolean | null;
}

interface Row {
  id: string;
  org_id: string;
  host: string;
  status: DomainStatus;
  is_primary: boolean;
  verification_token: string | null;
  created_at: string;
  last_checked_at: string | null;
  next_check_at: string | null;
  verified_at: string | null;
  last_check_error: string | null;
  points_at_default: boolean | null;
  created_ms: number;
}

const COLUMNS =
  'id, org_id, host, status, is_primary, verification_token, created_at, last_checked_at, next_check_at, verified_at, last_check_error, points_at_default, (extract(epoch from created_at) * 1000)::float8 as created_ms';

const stateOf = (r: Row): DomainState => ({
  id: Number(r.id),
  orgId: r.org_id,
  host: r.host,
  status: r.status,
  isPrimary: r.is_primary,
  token: r.verification_token,
  createdAt: r.created_at,
  lastCheckedAt: r.last_checked_at,
  nextCheckAt: r.next_check_at,
  verifiedAt: r.verified_at,
  lastCheckError: r.last_check_error,
  pointsAtDefault: r.points_at_default,
});

/** A domain as webhook events carry it (the verification token left out). */
export function domainEventData(d: DomainState): Record<string, unknown> {
  return {
    id: d.id,
    host: d.host,
    status: d.status,
    isPrimary: d.isPrimary,
    createdAt: d.createdAt,
    verifiedAt: d.verifiedAt,
    lastCheckedAt: d.lastCheckedAt,
    lastCheckError: d.lastCheckError,
  };
}

/** The TXT record that verifies `host` with `token`, as the page shows it. */
export function challengeRecord(host: string, token: string): { name: string; value: string } {
  return { name: `${CHALLENGE_PREFIX}${host}`, value: `${CHALLENGE_VALUE_PREFIX}${token}` };
}

/** When a PENDING domain is checked next: every minute for its first hour, then hourly. */
export function nextCheckDelay(createdMs: number, nowMs: number): number {
  return nowMs - createdMs < FIRST_HOUR_MS ? EVERY_MINUTE_MS : HOURLY_MS;
}

const held = () => new AppError('SML004', 'host: another organisation holds this domain', { field: 'host', reason: 'TAKEN' });

/** Adds a domain to verify: PENDING with a fresh token, checked at once by the caller's scheduler. */
export async function addDomainToVerify(sql: Sql, org: Organization, hostInput: string): Promise<DomainState> {
  const parsed = parseDomainHost(hostInput);
  if ('error' in parsed) throw new AppError('VE001', `host: ${parsed.error}`, { field: 'host' });
  const { host } = parsed;
  return sql.begin(async (tx) => {
    await tx`select id from organizations where id = ${org.id} for update`;
    const [count] = await tx<{ n: number }[]>`select count(*)::int as n from domains where org_id = ${org.id} and removed_at is null`;
    const n = count?.n ?? 0;
    if (n >= org.limits.customDomains)
      throw quotaExceeded('CUSTOM_DOMAINS', n, org.limits.customDomains, org.plan, suggestLimitUpgrade(org.plan, 'customDomains'));
    const [serving] = await tx<{ org_id: string }[]>`select org_id from domains where host = ${host} and active`;
    if (serving && serving.org_id !== org.id) throw held();
    const [mine] = await tx`select id from domains where org_id = ${org.id} and host = ${host} and removed_at is null`;
    if (mine) throw new AppError('SML004', 'host: this domain is added already', { field: 'host', reason: 'DUPLICATE' });
    const [row] = await tx<Row[]>`
      insert into domains (org_id, host, is_primary, active, status, verification_token, next_check_at)
      values (${org.id}, ${host}, false, false, 'PENDING', ${randomBytes(16).toString('hex')}, now())
      returning ${tx.unsafe(COLUMNS)}`;
    if (!row) throw new Error('insert into domains returned no row');
    return stateOf(row);
  }) as Promise<DomainState>;
}

/** The organisation's domains that are not removed, oldest first. */
export async function listDomainStates(sql: Sql, orgId: string): Promise<DomainState[]> {
  const rows = await sql<Row[]>`select ${sql.unsafe(COLUMNS)} from domains where org_id = ${orgId} and removed_at is null order by id`;
  return rows.map(stateOf);
}

export async function findDomainState(sql: Sql, orgId: string, id: number): Promise<DomainState | null> {
  const [row] = await sql<Row[]>`select ${sql.unsafe(COLUMNS)} from domains where org_id = ${orgId} and id = ${id} and removed_at is null`;
  return row ? stateOf(row) : null;
}

export interface DnsCheck {
  verified: boolean;
  /** Why not, in words for the page (no record, another value, the resolver failed). */
  problem: string | null;
  /** Whether the host points at the default short host (CNAME or the same addresses); null when unknown. */
  pointsAtDefault: boolean | null;
}

const DNS_TIMEOUT_MS = 2_000;

/** A resolver of `servers` (`ip[:port]`; none: the system's) with a short timeout. */
export function dnsResolver(servers: readonly string[]): Resolver {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

const missing = (err: unknown): boolean => ['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN'].includes((err as NodeJS.ErrnoException).code ?? '');

async function addresses(resolver: Resolver, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([resolver.resolve4(host).catch(() => []), resolver.resolve6(host).catch(() => [])]);
  return [...v4, ...v6].sort();
}

/** Looks up the challenge record of `host` and whether it points at `defaultHost`. */
export async function checkDns(resolver: Resolver, host: string, token: string, defaultHost: string): Promise<DnsCheck> {
  const { name, value } = challengeRecord(host, token);
  let verified = false;
  let problem: string | null = null;
  try {
    const records = (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    verified = records.includes(value);
    if (!verified) problem = records.length === 0 ? `no TXT record at ${name}` : `the TXT record at ${name} does not hold ${value}`;
  } catch (err) {
    problem = missing(err) ? `no TXT record at ${name}` : `the DNS lookup of ${name} failed (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  let pointsAtDefault: boolean | null = null;
  try {
    const cnames = await resolver.resolveCname(host).catch(() => [] as string[]);
    if (cnames.some((c) => c.toLowerCase().replace(/\.$/, '') === defaultHost)) pointsAtDefault = true;
    else {
      const [mine, theirs] = await Promise.all([addresses(resolver, host), addresses(resolver, defaultHost)]);
      pointsAtDefault = mine.length > 0 && theirs.length > 0 ? mine.some((a) => theirs.includes(a)) : mine.length > 0 ? false : null;
    }
  } catch {
    pointsAtDefault = null;
  }
  return { verified, problem, pointsAtDefault };
}

/**
 * Records a check's outcome: ACTIVE (and serving) when verified and no other organisation serves
 * the host; otherwise PENDING with the next check scheduled, or FAILED once the 7 days are over.
 */
export async function recordCheck(sql: Sql, d: Pick<DomainState, 'id'>, check: DnsCheck, nowMs: number): Promise<DomainState> {
  return sql.begin(async (tx) => {
    const [current] = await tx<Row[]>`select ${tx.unsafe(COLUMNS)} from domains where id = ${d.id} and removed_at is null for update`;
    if (!current) throw new AppError('EN001', 'Domain not found');
    if (current.status === 'ACTIVE') return stateOf(current);
    let problem = check.problem;
    if (check.verified) {
      const [serving] = await tx<{ org_id: string }[]>`select org_id from domains where host = ${current.host} and active and id <> ${current.id}`;
      if (!serving) {
        const [row] = await tx<Row[]>`
          update domains set status = 'ACTIVE', active = true, verified_at = now(), last_checked_at = now(), next_check_at = null,
                 last_check_error = null, points_at_default = ${check.pointsAtDefault}
          where id = ${current.id} returning ${tx.unsafe(COLUMNS)}`;
        await enqueueInvalidations(tx, [{ kind: 'domain', host: current.host }]);
        if (!row) throw new Error('update of domains returned no row');
        await enqueueWebhookEvent(tx, current.org_id, 'domain.verified', domainEventData(stateOf(row)));
        return stateOf(row);
      }
      problem = 'another organisation serves this domain';
    }
    const expired = nowMs - current.created_ms >= VERIFY_FOR_MS;
    const status: DomainStatus = expired ? 'FAILED' : 'PENDING';
    const next = expired ? null : new Date(nowMs + nextCheckDelay(current.created_ms, nowMs)).toISOString();
    const [row] = await tx<Row[]>`
      update domains set status = ${status}, last_checked_at = now(), next_check_at = ${next}, last_check_error = ${problem},
             points_at_default = ${check.pointsAtDefault}
      where id = ${current.id} returning ${tx.unsafe(COLUMNS)}`;
    if (!row) throw new Error('update of domains returned no row');
    if (status === 'FAILED' && current.status !== 'FAILED') await enqueueWebhookEvent(tx, current.org_id, 'domain.failed', domainEventData(stateOf(row)));
    return stateOf(row);
  }) as Promise<DomainState>;
}

/** Claims up to `limit` PENDING domains whose check is due (moving their next check a minute on). */
export async function claimDueChecks(sql: Sql, limit = 20): Promise<DomainState[]> {
  const rows = await sql<Row[]>`
    update domains set next_check_at = now() + interval '1 minute'
    where id in (
      select id from domains where status = 'PENDING' and removed_at is null and next_check_at <= now()
      order by next_check_at limit ${limit} for update skip locked)
    returning ${sql.unsafe(COLUMNS)}`;
  return rows.map(stateOf);
}

/** Removes a domain of the organisation (pending, failed or active); links fall back to the default host. */
export async function removeDomainById(sql: Sql, orgId: string, id: number): Promise<DomainState> {
  return sql.begin(async (tx) => {
    const [row] = await tx<Row[]>`
      update domains set active = false, is_primary = false, removed_at = now()
      where org_id = ${orgId} and id = ${id} and removed_at is null returning ${tx.unsafe(COLUMNS)}`;
    if (!row) throw new AppError('EN001', 'Domain not found');
    await enqueueInvalidations(tx, [{ kind: 'domain', host: row.host }]);
    return stateOf(row);
  }) as Promise<DomainState>;
}
