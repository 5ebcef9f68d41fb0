// Invariant: the 2FA rule of an organisation: a signed-in member without two-factor
// authentication may not act in an organisation that requires it (AU005). The organisation is
// read as it is now, never from the session.
import type { Sql } from '../db/database.ts';
import { findOrganization } from '../orgs/org-repository.ts';
import type { Session } from './sessions.ts';

/** True when the session's organisation requires 2FA and the session's user has none. */
export async function lacksRequiredTwoFactor(sql: Sql, session: Pick<Session, 'orgId' | 'twoFactor'>): Promise<boolean> {
  if (session.twoFactor || session.orgId === null) return false;
  return (await findOrganization(sql, session.orgId))?.require2fa === true;
}
