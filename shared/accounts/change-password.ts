// Invariant: a password changes only with the current one proven and the new one acceptable; the
// change ends every other session of the user, and the calling session is replaced by a new one
// (a new id: the old one stops working), whose id is returned for the cookie.
import type { Sql } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { fieldProblem } from '../errors/domain-errors.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { createSession, type Session } from './sessions.ts';
import { getUser, setPasswordHash } from './users.ts';

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
  userAgent: string | null;
}

/** The new session's id (for the cookie). AU001 when the session's user is gone. */
export async function changePassword(sql: Sql, session: Session, input: ChangePasswordInput): Promise<string> {
  const user = await getUser(sql, session.userId);
  if (!user) throw new AppError('AU001');
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) throw fieldProblem('currentPassword', 'is not your current password');
  const problem = passwordProblem(input.newPassword);
  if (problem) throw fieldProblem('newPassword', problem);
  await setPasswordHash(sql, user.id, await hashPassword(input.newPassword), session.idHash);
  const created = await createSession(sql, {
    userId: user.id,
    orgId: session.orgId,
    stage: 'full',
    userAgent: input.userAgent,
    replacesIdHash: session.idHash,
  });
  return created.id;
}
