// Invariant: a password change proves the current password, checks the new one, ends every other
// session of the user and replaces the calling one. Against a real migrated database.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { changePassword } from './change-password.ts';
import { verifyPassword } from './passwords.ts';
import { createSession, loadSession, type Session } from './sessions.ts';
import { signUp } from './sign-up.ts';
import { getUser } from './users.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

const OLD = 'the old password here';
const NEW = 'the new password here';

async function signedIn(email: string): Promise<{ session: Session; other: string; current: string }> {
  const { user, orgId } = await signUp(db.sql, { email, password: OLD, organisation: 'Org' });
  const open = () => createSession(db.sql, { userId: user.id, orgId, stage: 'full', userAgent: null });
  const current = (await open()).id;
  const other = (await open()).id;
  const session = await loadSession(db.sql, current, Date.now());
  if (!session) throw new Error('no session');
  return { session, other, current };
}

describe('changePassword', () => {
  it('sets the new password, ends every other session and replaces the calling one', async () => {
    const { session, other, current } = await signedIn('change@example.com');
    const fresh = await changePassword(db.sql, session, { currentPassword: OLD, newPassword: NEW, userAgent: 'test' });
    const user = await getUser(db.sql, session.userId);
    expect(await verifyPassword(user?.passwordHash ?? null, NEW)).toBe(true);
    expect(await loadSession(db.sql, other, Date.now())).toBeNull();
    expect(await loadSession(db.sql, current, Date.now())).toBeNull();
    expect(await loadSession(db.sql, fresh, Date.now())).toMatchObject({ userId: session.userId, orgId: session.orgId, stage: 'full' });
  });

  it('refuses a wrong current password and a weak new one by field, and changes nothing', async () => {
    const { session, other } = await signedIn('refuse@example.com');
    await expect(changePassword(db.sql, session, { currentPassword: 'not the password', newPassword: NEW, userAgent: null })).rejects.toMatchObject({
      code: 'VE001',
      message: 'currentPassword: is not your current password',
      details: { field: 'currentPassword' },
    });
    await expect(changePassword(db.sql, session, { currentPassword: OLD, newPassword: 'short', userAgent: null })).rejects.toMatchObject({
      code: 'VE001',
      details: { field: 'newPassword' },
    });
    const user = await getUser(db.sql, session.userId);
    expect(await verifyPassword(user?.passwordHash ?? null, OLD)).toBe(true);
    expect(await loadSession(db.sql, other, Date.now())).not.toBeNull();
  });
});
