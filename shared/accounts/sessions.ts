// Invariant: a session is an opaque 256-bit id in a cookie, stored only as its SHA-256, with a
// CSRF token bound to it. It ends after 12 h idle or 30 days in all, on sign-out, and for every
// session of the user on a password change or "sign out everywhere". A new id is issued (the old
// one deleted in the same transaction) at sign-in and at the 2FA step.
import type { Sql } from '../db/database.ts';
import type { Role } from './roles.ts';
import { randomToken, sha256 } from './secrets.ts';

export const SESSION_IDLE_MS = 12 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** last_seen_at is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

export type SessionStage = 'second_factor' | 'full';

export interface Session {
  idHash: string;
  userId: string;
  email: string;
  twoFactor: boolean;
  orgId: string | null;
  /** The user's role in orgId (null when orgId is null or the membership is gone). */
  role: Role | null;
  csrfToken: string;
  stage: SessionStage;
  createdAt: string;
}

export interface NewSession {
  /** The cookie value; only its hash is stored. */
  id: string;
  csrfToken: string;
}

export async function createSession(
  sql: Sql,
  s: { userId: string; orgId: string | null; stage: SessionStage; userAgent: string | null; replacesIdHash?: string | null },
): Promise<NewSession> {
  const id = randomToken();
  const csrfToken = randomToken();
  await sql.begin(async (tx) => {
    if (s.replacesIdHash) await tx`delete from sessions where id_hash = ${s.replacesIdHash}`;
    await tx`
      insert into sessions (id_hash, user_id, org_id, csrf_token, stage, user_agent)
      values (${sha256(id)}, ${s.userId}, ${s.orgId}, ${csrfToken}, ${s.stage}, ${s.userAgent?.slice(0, 300) ?? null})`;
  });
  return { id, csrfToken };
}

/** The live session of a cookie value, or null (unknown, idle too long, too old); touches last_seen_at. */
export async function loadSession(sql: Sql, id: string | undefined, nowMs: number): Promise<Session | null> {
  if (!id || id.length > 100) return null;
  const idHash = sha256(id);
  const [row] = await sql<
    {
      user_id: string;
      email: string;
      two_factor: boolean;
      org_id: string | null;
      role: Role | null;
      csrf_token: string;
      stage: SessionStage;
      created_at: string;
      created_ms: number;
      seen_ms: number;
    }[]
  >`
    select s.user_id, u.email, u.totp_secret is not null as two_factor, s.org_id, m.role, s.csrf_token, s.stage, s.created_at,
           (extract(epoch from s.created_at) * 1000)::float8 as created_ms, (extract(epoch from s.last_seen_at) * 1000)::float8 as seen_ms
    from sessions s join users u on u.id = s.user_id
    left join memberships m on m.user_id = s.user_id and m.org_id = s.org_id
    where s.id_hash = ${idHash}`;
  if (!row) return null;
  if (nowMs - row.created_ms > SESSION_ABSOLUTE_MS || nowMs - row.seen_ms > SESSION_IDLE_MS) {
    await sql`delete from sessions where id_hash = ${idHash}`;
    return null;
  }
  if (nowMs - row.seen_ms > TOUCH_EVERY_MS) await sql`update sessions set last_seen_at = now() where id_hash = ${idHash}`;
  return {
    idHash,
    userId: row.user_id,
    email: row.email,
    twoFactor: row.two_factor,
    orgId: row.org_id,
    role: row.org_id === null ? null : row.role,
    csrfToken: row.csrf_token,
    stage: row.stage,
    createdAt: row.created_at,
  };
}

export async function setSessionOrg(sql: Sql, idHash: string, orgId: string): Promise<void> {
  await sql`update sessions set org_id = ${orgId} where id_hash = ${idHash}`;
}

export async function endSession(sql: Sql, idHash: string): Promise<void> {
  await sql`delete from sessions where id_hash = ${idHash}`;
}

/** Ends every session of the user ("sign out everywhere"). */
export async function endUserSessions(sql: Sql, userId: string): Promise<number> {
  const rows = await sql`delete from sessions where user_id = ${userId} returning id_hash`;
  return rows.length;
}

export interface SessionInfo {
  /** A public handle (a prefix of the stored hash), never the cookie value. */
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  current: boolean;
}

export async function listSessions(sql: Sql, userId: string, currentIdHash: string): Promise<SessionInfo[]> {
  const rows = await sql<{ id_hash: string; created_at: string; last_seen_at: string; user_agent: string | null }[]>`
    select id_hash, created_at, last_seen_at, user_agent from sessions where user_id = ${userId} and stage = 'full' order by last_seen_at desc`;
  return rows.map((r) => ({
    id: r.id_hash.slice(0, 16),
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    userAgent: r.user_agent,
    current: r.id_hash === currentIdHash,
  }));
}

export async function endSessionByHandle(sql: Sql, userId: string, handle: string): Promise<boolean> {
  if (!/^[0-9a-f]{16}$/.test(handle)) return false;
  const rows = await sql`delete from sessions where user_id = ${userId} and left(id_hash, 16) = ${handle} returning id_hash`;
  return rows.length > 0;
}
