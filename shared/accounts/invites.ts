// Invariant: an invitation is a hashed one-time token that works once and for 7 days. Seats =
// members + pending invitations; an invitation past the plan's seats is refused with QE001 SEATS,
// counted with the organisation's row locked, so concurrent invitations cannot pass the limit.
// Accepting one creates the user (or joins an existing one, who proves their password) and the
// membership in one transaction.
import type { Sql, Tx } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { fieldProblem } from '../errors/domain-errors.ts';
import { quotaExceeded } from '../orgs/plan-errors.ts';
import { getOrganization } from '../orgs/org-repository.ts';
import { suggestLimitUpgrade } from '../orgs/plans.ts';
import { addMembership } from './memberships.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import type { Role } from './roles.ts';
import { randomToken, sha256 } from './secrets.ts';
import { findUserByEmail, insertUser, isEmail, normalizeEmail, type User } from './users.ts';

export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export interface PendingInvite {
  id: string;
  orgId: string;
  orgName: string;
  email: string | null;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

interface InviteRow {
  id: string;
  org_id: string;
  org_name: string;
  email: string | null;
  role: Role;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

const fromRow = (r: InviteRow): PendingInvite => ({
  id: r.id,
  orgId: r.org_id,
  orgName: r.org_name,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export const inviteExpired = (): AppError => new AppError('AU004');

/** The link a person follows: the token is in the fragment, so it reaches no server log. */
export function inviteUrl(dashboardUrl: string, token: string): string {
  return `${dashboardUrl}/invite#${token}`;
}

/** Members plus pending invitations of the organisation. */
export async function seatsUsed(sql: Sql | Tx, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select (select count(*) from memberships where org_id = ${orgId})
         + (select count(*) from invites where org_id = ${orgId} and accepted_at is null and revoked_at is null and expires_at > now()) as n`;
  return Number(row?.n ?? 0);
}

export interface CreateInviteInput {
  orgId: string;
  /** null: the person following it chooses the address (the demo owner's invite). */
  email: string | null;
  role: Role;
  invitedBy: string;
}

export async function createInvite(sql: Sql, input: CreateInviteInput): Promise<{ invite: PendingInvite; token: string }> {
  const email = input.email === null ? null : normalizeEmail(input.email);
  if (email !== null && !isEmail(email)) throw fieldProblem('email', 'must be an e-mail address');
  const token = randomToken();
  const row = await sql.begin(async (tx) => {
    await tx`select id from organizations where id = ${input.orgId} for update`;
    const org = await getOrganization(tx, input.orgId);
    if (email !== null) {
      const [member] = await tx`select 1 from memberships m join users u on u.id = m.user_id where m.org_id = ${org.id} and u.email = ${email}`;
      if (member) throw fieldProblem('email', 'is already a member of this organisation');
      // A new invitation for the same address replaces the pending one (the seat stays the same).
      await tx`update invites set revoked_at = now() where org_id = ${org.id} and email = ${email} and accepted_at is null and revoked_at is null`;
    }
    const used = await seatsUsed(tx, org.id);
    if (used >= org.limits.seats) throw quotaExceeded('SEATS', used, org.limits.seats, org.plan, suggestLimitUpgrade(org.plan, 'seats'));
    const [inserted] = await tx<InviteRow[]>`
      insert into invites (org_id, email, role, token_hash, invited_by, expires_at)
      values (${org.id}, ${email}, ${input.role}, ${sha256(token)}, ${input.invitedBy}, now() + ${`${INVITE_TTL_MS} milliseconds`}::interval)
      returning id, org_id, ${org.name} as org_name, email, role, invited_by, created_at, expires_at`;
    if (!inserted) throw new Error('insert into invites returned no row');
    return inserted;
  });
  return { invite: fromRow(row), token };
}

const PENDING = 'i.accepted_at is null and i.revoked_at is null and i.expires_at > now()';

/** The pending invitation of a token, or null (unknown, used, revoked or expired). */
export async function findInvite(sql: Sql | Tx, token: string): Promise<PendingInvite | null> {
  if (token.length < 20 || token.length > 100) return null;
  const [row] = await sql<InviteRow[]>`
    select i.id, i.org_id, o.name as org_name, i.email, i.role, i.invited_by, i.created_at, i.expires_at
    from invites i join organizations o on o.id = i.org_id where i.token_hash = ${sha256(token)} and ${sql.unsafe(PENDING)}`;
  return row ? fromRow(row) : null;
}

export async function listInvites(sql: Sql, orgId: string): Promise<PendingInvite[]> {
  const rows = await sql<InviteRow[]>`
    select i.id, i.org_id, o.name as org_name, i.email, i.role, i.invited_by, i.created_at, i.expires_at
    from invites i join organizations o on o.id = i.org_id where i.org_id = ${orgId} and ${sql.unsafe(PENDING)} order by i.created_at`;
  return rows.map(fromRow);
}

export async function revokeInvite(sql: Sql, orgId: string, id: string): Promise<PendingInvite> {
  const invites = await listInvites(sql, orgId);
  const found = invites.find((i) => i.id === id);
  if (!found) throw new AppError('EN001', 'Invitation not found');
  await sql`update invites set revoked_at = now() where id = ${id} and org_id = ${orgId}`;
  return found;
}

/**
 * Accepts an invitation: a new address gets an account with this password; an existing user
 * proves theirs. Returns the user and the organisation joined.
 */
export async function acceptInvite(sql: Sql, token: string, input: { email?: string; password: string }): Promise<{ user: User; orgId: string; role: Role }> {
  const invite = await findInvite(sql, token);
  if (!invite) throw inviteExpired();
  const email = normalizeEmail(invite.email ?? input.email ?? '');
  if (!isEmail(email)) throw fieldProblem('email', 'must be an e-mail address');
  const existing = await findUserByEmail(sql, email);
  if (existing) {
    if (!(await verifyPassword(existing.passwordHash, input.password))) throw fieldProblem('password', 'is not the password of this existing account');
  } else {
    const problem = passwordProblem(input.password);
    if (problem) throw fieldProblem('password', problem);
  }
  const passwordHash = existing ? null : await hashPassword(input.password);
  const user = await sql.begin(async (tx) => {
    const [claimed] = await tx`update invites i set accepted_at = now() where i.id = ${invite.id} and ${tx.unsafe(PENDING)} returning id`;
    if (!claimed) throw inviteExpired();
    const u = existing ?? (passwordHash ? await insertUser(tx, email, passwordHash) : null);
    if (!u) throw new Error('no user');
    await addMembership(tx, invite.orgId, u.id, invite.role);
    return u;
  });
  return { user, orgId: invite.orgId, role: invite.role };
}

/**
 * The demo organisation's owner invite while it has no owner: earlier ones made here are
 * revoked (their tokens were printed once and cannot be shown again), a fresh one is made.
 */
export async function demoOwnerInvite(sql: Sql, orgId: string): Promise<string | null> {
  const [owner] = await sql`select 1 from memberships where org_id = ${orgId} and role = 'owner'`;
  if (owner) return null;
  await sql`update invites set revoked_at = now() where org_id = ${orgId} and invited_by = 'npm start' and accepted_at is null and revoked_at is null`;
  const { token } = await createInvite(sql, { orgId, email: null, role: 'owner', invitedBy: 'npm start' });
  return token;
}
