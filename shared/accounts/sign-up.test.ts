// Invariant: a sign-up makes the user, a FREE organisation and the owner membership together or
// not at all, and each refusal names its field. Against a real migrated database.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { getOrganization } from '../orgs/org-repository.ts';
import { membershipsOf } from './memberships.ts';
import { verifyPassword } from './passwords.ts';
import { signUp } from './sign-up.ts';
import { findUserByEmail } from './users.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

const PASSWORD = 'a long enough password';

describe('signUp', () => {
  it('creates the user, a FREE organisation of the trimmed name and the owner membership', async () => {
    const { user, orgId } = await signUp(db.sql, { email: ' New@Example.COM ', password: PASSWORD, organisation: '  Acme  ' });
    expect(user.email).toBe('new@example.com');
    expect(await verifyPassword(user.passwordHash, PASSWORD)).toBe(true);
    const org = await getOrganization(db.sql, orgId);
    expect({ name: org.name, plan: org.plan, require2fa: org.require2fa }).toEqual({ name: 'Acme', plan: 'FREE', require2fa: false });
    expect((await membershipsOf(db.sql, user.id)).map((m) => ({ orgId: m.orgId, role: m.role }))).toEqual([{ orgId, role: 'owner' }]);
  });

  it('refuses each bad field with VE001 naming it, and writes nothing', async () => {
    const refusal = (input: { email: string; password: string; organisation: string }) =>
      signUp(db.sql, input).then(
        () => null,
        (err: { code?: string; message?: string; details?: unknown }) => ({ code: err.code, message: err.message, details: err.details }),
      );
    expect(await refusal({ email: 'not-an-address', password: PASSWORD, organisation: 'X' })).toEqual({
      code: 'VE001',
      message: 'email: must be an e-mail address',
      details: { field: 'email' },
    });
    expect(await refusal({ email: 'short@example.com', password: 'short', organisation: 'X' })).toMatchObject({
      code: 'VE001',
      details: { field: 'password' },
    });
    expect(await refusal({ email: 'blank@example.com', password: PASSWORD, organisation: '   ' })).toEqual({
      code: 'VE001',
      message: 'organisation: must not be empty',
      details: { field: 'organisation' },
    });
    expect(await findUserByEmail(db.sql, 'short@example.com')).toBeNull();
    expect(await findUserByEmail(db.sql, 'blank@example.com')).toBeNull();
    await signUp(db.sql, { email: 'taken@example.com', password: PASSWORD, organisation: 'First' });
    expect(await refusal({ email: 'TAKEN@example.com', password: PASSWORD, organisation: 'Second' })).toEqual({
      code: 'VE001',
      message: 'email: has an account already; sign in instead',
      details: { field: 'email' },
    });
  });
});
