// Invariant: a host is active (serves) for at most one organisation at a time, and an organisation
// has at most one active primary domain. A domain being verified (domain-verification.ts) is not
// active until verified, so every read here that serves a domain ignores it. Removing a domain
// deactivates it; links keep their domain_id and fall back to the default short domain when read.
// Adding or removing a domain commits together with its domain invalidation in the outbox. This
// is the operator's trusted path (admin CLI): a domain added here is active at once.
import type { Sql } from '../db/database.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import { AppError } from '../errors/app-error.ts';
import { quotaExceeded } from '../orgs/plan-errors.ts';
import { suggestLimitUpgrade } from '../orgs/plans.ts';
import type { Organization } from '../orgs/organization.ts';
import { normalizeHost, parseDomainHost } from './host-name.ts';

export interface Domain {
  id: number;
  orgId: string;
  host: string;
  isPrimary: boolean;
  active: boolean;
}

interface DomainRow {
  id: string;
  org_id: string;
  host: string;
  is_primary: boolean;
  active: boolean;
}

const fromRow = (r: DomainRow): Domain => ({ id: Number(r.id), orgId: r.org_id, host: r.host, isPrimary: r.is_primary, active: r.active });

export async function addDomain(sql: Sql, org: Organization, hostInput: string, primary: boolean): Promise<Domain> {
  const parsed = parseDomainHost(hostInput);
  if ('error' in parsed) throw new AppError('VE001', parsed.error);
  const { host } = parsed;
  return sql.begin(async (tx) => {
    await tx`select id from organizations where id = ${org.id} for update`;
    const [taken] = await tx<{ id: string }[]>`select id from domains where host = ${host} and active`;
    if (taken) throw new AppError('SML004', 'DB Write exception', { field: 'host', reason: 'TAKEN' });
    // The organisation's own pending (or failed) verification of this host: the operator's word makes it active.
    const [pending] = await tx<{ id: string }[]>`select id from domains where org_id = ${org.id} and host = ${host} and removed_at is null`;
    if (!pending) {
      const [count] = await tx<{ n: number }[]>`select count(*)::int as n from domains where org_id = ${org.id} and removed_at is null`;
      const n = count?.n ?? 0;
      if (n >= org.limits.customDomains)
        throw quotaExceeded('CUSTOM_DOMAINS', n, org.limits.customDomains, org.plan, suggestLimitUpgrade(org.plan, 'customDomains'));
    }
    if (primary) await tx`update domains set is_primary = false where org_id = ${org.id} and active and is_primary`;
    const [row] = pending
      ? await tx<DomainRow[]>`
          update domains set active = true, status = 'ACTIVE', is_primary = ${primary}, verified_at = now(), next_check_at = null, last_check_error = null
          where id = ${pending.id} returning *`
      : await tx<DomainRow[]>`insert into domains (org_id, host, is_primary) values (${org.id}, ${host}, ${primary}) returning *`;
    await enqueueInvalidations(tx, [{ kind: 'domain', host }]);
    if (!row) throw new Error('insert into domains returned no row');
    return fromRow(row);
  }) as Promise<Domain>;
}

export async function removeDomain(sql: Sql, orgId: string, hostInput: string): Promise<Domain> {
  const host = normalizeHost(hostInput);
  return sql.begin(async (tx) => {
    const [row] = await tx<DomainRow[]>`
      update domains set active = false, is_primary = false, removed_at = now()
      where org_id = ${orgId} and host = ${host} and removed_at is null returning *`;
    if (!row) throw new AppError('EN001', `Domain '${host}' not found`);
    await enqueueInvalidations(tx, [{ kind: 'domain', host }]);
    return fromRow(row);
  }) as Promise<Domain>;
}

export async function findActiveDomain(sql: Sql, orgId: string, hostInput: string): Promise<Domain | null> {
  const [row] = await sql<DomainRow[]>`select * from domains where org_id = ${orgId} and host = ${normalizeHost(hostInput)} and active`;
  return row ? fromRow(row) : null;
}

export async function findPrimaryDomain(sql: Sql, orgId: string): Promise<Domain | null> {
  const [row] = await sql<DomainRow[]>`select * from domains where org_id = ${orgId} and active and is_primary`;
  return row ? fromRow(row) : null;
}

export async function listDomains(sql: Sql, orgId: string): Promise<Domain[]> {
  const rows = await sql<DomainRow[]>`select * from domains where org_id = ${orgId} order by id`;
  return rows.map(fromRow);
}

/** Every active custom domain (the redirector's domain directory). */
/** How many of the organisation's domains are active (what its customDomains limit counts). */
export async function countActiveDomains(sql: Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from domains where org_id = ${orgId} and active`;
  return row?.n ?? 0;
}

export async function listActiveDomains(sql: Sql): Promise<Domain[]> {
  const rows = await sql<DomainRow[]>`select * from domains where active`;
  return rows.map(fromRow);
}

/** The active custom domain of one host (stored normalised), or null. */
export async function findActiveDomainByHost(sql: Sql, host: string): Promise<Domain | null> {
  const [row] = await sql<DomainRow[]>`select * from domains where host = ${host} and active`;
  return row ? fromRow(row) : null;
}
