// Invariant: a user has at most one role per organisation, and an organisation that has an owner
// keeps at least one: a change that would remove the last owner is refused, checked with the
// organisation's row locked so two concurrent changes cannot both pass.
import type { Sql, Tx } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { accessDenied } from '../errors/domain-errors.ts';
import { mayManageRole, type Role } from './roles.ts';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  twoFactor: boolean;
  since: string;
}

export interface OrgMembership {
  orgId: string;
  orgName: string;
  role: Role;
}

export async function listMembers(sql: Sql, orgId: string): Promise<Member[]> {
  const rows = await sql<{ user_id: string; email: string; role: Role; two_factor: boolean; created_at: string }[]>`
    select m.user_id, u.email, m.role, u.totp_secret is not null as two_factor, m.created_at
    from memberships m join users u on u.id = m.user_id where m.org_id = ${orgId} order by m.created_at, u.email`;
  return rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, twoFactor: r.two_factor, since: r.created_at }));
}

export async function membershipsOf(sql: Sql, userId: string): Promise<OrgMembership[]> {
  const rows = await sql<{ org_id: string; name: string; role: Role }[]>`
    select m.org_id, o.name, m.role from memberships m join organizations o on o.id = m.org_id
    where m.user_id = ${userId} order by m.created_at, o.name`;
  return rows.map((r) => ({ orgId: r.org_id, orgName: r.name, role: r.role }));
}

export async function addMembership(tx: Sql | Tx, orgId: string, userId: string, role: Role): Promise<void> {
  await tx`insert into memberships (org_id, user_id, role) values (${orgId}, ${userId}, ${role})
           on conflict (org_id, user_id) do nothing`;
}

const memberNotFound = () => new AppError('EN001', 'Member not found');
const lastOwner = () => new AppError('VE001', 'An organisation keeps at least one owner', { field: 'role' });

async function lockedRole(tx: Tx, orgId: string, userId: string): Promise<Role> {
  await tx`select id from organizations where id = ${orgId} for update`;
  const [row] = await tx<{ role: Role }[]>`select role from memberships where org_id = ${orgId} and user_id = ${userId}`;
  if (!row) throw memberNotFound();
  return row.role;
}

async function otherOwners(tx: Tx, orgId: string, userId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select count(*)::int as n from memberships where org_id = ${orgId} and role = 'owner' and user_id <> ${userId}`;
  return row?.n ?? 0;
}

/** Changes a member's role as `actor` (null: the operator's admin CLI, which may do anything). */
export async function changeRole(sql: Sql, actor: Role | null, orgId: string, userId: string, role: Role): Promise<void> {
  await sql.begin(async (tx) => {
    const current = await lockedRole(tx, orgId, userId);
    if (actor !== null && (!mayManageRole(actor, current) || !mayManageRole(actor, role))) throw accessDenied();
    if (current === 'owner' && role !== 'owner' && (await otherOwners(tx, orgId, userId)) === 0) throw lastOwner();
    await tx`update memberships set role = ${role} where org_id = ${orgId} and user_id = ${userId}`;
  });
}

/** Removes a member as `actor` (null: the admin CLI); their sessions lose this organisation. */
export async function removeMember(sql: Sql, actor: Role | null, orgId: string, userId: string): Promise<void> {
  await sql.begin(async (tx) => {
    const current = await lockedRole(tx, orgId, userId);
    if (actor !== null && !mayManageRole(actor, current)) throw accessDenied();
    if (current === 'owner' && (await otherOwners(tx, orgId, userId)) === 0) throw lastOwner();
    await tx`delete from memberships where org_id = ${orgId} and user_id = ${userId}`;
    await tx`update sessions set org_id = null where user_id = ${userId} and org_id = ${orgId}`;
  });
}
