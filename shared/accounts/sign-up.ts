// Invariant: a sign-up creates the user, a FREE organisation of the given name and the user's
// owner membership in one transaction, or nothing; each refusal names its field (VE001), and an
// e-mail that has an account already is refused before any write.
import type { Sql } from '../db/database.ts';
import { fieldProblem } from '../errors/domain-errors.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { addMembership } from './memberships.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { findUserByEmail, insertUser, isEmail, normalizeEmail, type User } from './users.ts';

export interface SignUpInput {
  email: string;
  password: string;
  /** The new organisation's name. */
  organisation: string;
}

export async function signUp(sql: Sql, input: SignUpInput): Promise<{ user: User; orgId: string }> {
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) throw fieldProblem('email', 'must be an e-mail address');
  const problem = passwordProblem(input.password);
  if (problem) throw fieldProblem('password', problem);
  const name = input.organisation.trim();
  if (name === '') throw fieldProblem('organisation', 'must not be empty');
  if (await findUserByEmail(sql, email)) throw fieldProblem('email', 'has an account already; sign in instead');
  const hash = await hashPassword(input.password);
  return sql.begin(async (tx) => {
    const user = await insertUser(tx, email, hash);
    const org = await createOrganization(tx, { name, plan: 'FREE' });
    await addMembership(tx, org.id, user.id, 'owner');
    return { user, orgId: org.id };
  });
}
