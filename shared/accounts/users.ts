// Invariant: a user is one e-mail address (stored lower-case, unique) with an argon2id password
// hash; the hash and the TOTP secrets never leave this module's callers in a response.
import type { Sql, Tx } from '../db/database.ts';

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  totpSecret: string | null;
  pendingTotpSecret: string | null;
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  totp_secret: string | null;
  pending_totp_secret: string | null;
}

const fromRow = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  pendingTotpSecret: r.pending_totp_secret,
});

const EMAIL = /^[^@\s<>"'`]+@[^@\s<>"'`]+\.[^@\s<>"'`]+$/;

export function normalizeEmail(input: string): string {
  return input.trim().toLowerCase();
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export async function findUserByEmail(sql: Sql | Tx, email: string): Promise<User | null> {
  const [row] = await sql<UserRow[]>`select * from users where email = ${normalizeEmail(email)}`;
  return row ? fromRow(row) : null;
}

export async function getUser(sql: Sql | Tx, id: string): Promise<User | null> {
  const [row] = await sql<UserRow[]>`select * from users where id = ${id}`;
  return row ? fromRow(row) : null;
}

export async function insertUser(tx: Sql | Tx, email: string, passwordHash: string): Promise<User> {
  const [row] = await tx<UserRow[]>`insert into users (email, password_hash) values (${normalizeEmail(email)}, ${passwordHash}) returning *`;
  if (!row) throw new Error('insert into users returned no row');
  return fromRow(row);
}

/** Sets a new password hash; every session of the user but `keepSessionHash` ends. */
export async function setPasswordHash(sql: Sql, userId: string, passwordHash: string, keepSessionHash: string | null): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update users set password_hash = ${passwordHash}, password_changed_at = now() where id = ${userId}`;
    await tx`delete from sessions where user_id = ${userId} and id_hash is distinct from ${keepSessionHash}`;
  });
}

export async function setPendingTotpSecret(sql: Sql, userId: string, secret: string | null): Promise<void> {
  await sql`update users set pending_totp_secret = ${secret} where id = ${userId}`;
}

/** Turns 2FA on with `secret` and replaces the recovery codes with these hashes. */
export async function enableTotp(sql: Sql, userId: string, secret: string, step: number, recoveryHashes: readonly string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update users set totp_secret = ${secret}, pending_totp_secret = null, totp_last_step = ${step} where id = ${userId}`;
    await tx`delete from recovery_codes where user_id = ${userId}`;
    for (const h of recoveryHashes) await tx`insert into recovery_codes (user_id, code_hash) values (${userId}, ${h})`;
  });
}

/** Turns 2FA off (the user, or `user reset-2fa`): secret, pending secret and recovery codes go. */
export async function disableTotp(sql: Sql, userId: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update users set totp_secret = null, pending_totp_secret = null, totp_last_step = null where id = ${userId}`;
    await tx`delete from recovery_codes where user_id = ${userId}`;
  });
}

/** Uses one recovery code (its hash) once; false when unknown or used. */
export async function redeemRecoveryCode(sql: Sql, userId: string, codeHash: string): Promise<boolean> {
  const rows =
    await sql`update recovery_codes set used_at = now() where user_id = ${userId} and code_hash = ${codeHash} and used_at is null returning code_hash`;
  return rows.length === 1;
}

export async function recoveryCodesLeft(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from recovery_codes where user_id = ${userId} and used_at is null`;
  return row?.n ?? 0;
}
