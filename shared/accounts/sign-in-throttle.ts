// Invariant: after 10 failed sign-ins for one e-mail address within 15 minutes, sign-in with that
// address is refused for 15 minutes, whether or not an account has it (so the lock reveals
// nothing); one client address gets at most 100 attempts per 15 minutes. Attempts are kept in
// Postgres (every dashboard process sees them) and pruned after a day.
import type { Sql } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { normalizeEmail } from './users.ts';

export const ACCOUNT_FAILURES = 10;
export const ADDRESS_ATTEMPTS = 100;
export const THROTTLE_WINDOW = '15 minutes';

export const signInLocked = (): AppError =>
  new AppError(
    'SML005',
    'Too many failed sign-ins; try again in 15 minutes',
    { kind: 'rate_limit_exceeded', scope: 'sign_in', retryAfterSeconds: 900 },
    {
      'retry-after': '900',
    },
  );

/** Throws SML005 when the address is locked or the client has used its attempts. */
export async function assertSignInAllowed(sql: Sql, emailInput: string, address: string): Promise<void> {
  const email = normalizeEmail(emailInput);
  const [row] = await sql<{ locked: boolean; attempts: number }[]>`
    select exists (select 1 from sign_in_locks where email = ${email} and locked_until > now()) as locked,
           (select count(*)::int from sign_in_attempts where address = ${address} and at > now() - ${THROTTLE_WINDOW}::interval) as attempts`;
  if (row?.locked || (row?.attempts ?? 0) >= ADDRESS_ATTEMPTS) throw signInLocked();
}

/** Records an attempt; the 10th failure within the window (since the last lock) locks the address. */
export async function recordSignIn(sql: Sql, emailInput: string, address: string, ok: boolean): Promise<void> {
  const email = normalizeEmail(emailInput).slice(0, 254);
  await sql`insert into sign_in_attempts (email, address, ok) values (${email}, ${address}, ${ok})`;
  if (ok) return;
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from sign_in_attempts
    where email = ${email} and not ok
      and at > greatest(now() - ${THROTTLE_WINDOW}::interval, coalesce((select locked_until from sign_in_locks where email = ${email}), '-infinity'))`;
  if ((row?.n ?? 0) >= ACCOUNT_FAILURES) {
    await sql`insert into sign_in_locks (email, locked_until) values (${email}, now() + ${THROTTLE_WINDOW}::interval)
              on conflict (email) do update set locked_until = excluded.locked_until`;
  }
}

export async function pruneSignInAttempts(sql: Sql): Promise<void> {
  await sql`delete from sign_in_attempts where at < now() - interval '1 day'`;
  await sql`delete from sign_in_locks where locked_until < now()`;
}
