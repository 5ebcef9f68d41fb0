// Invariant: a member without 2FA lacks what an organisation that requires 2FA asks for; a member
// with 2FA, an organisation that does not require it, or no organisation never does. The
// organisation's setting is read as it is now. Against a real migrated database.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { getOrganization, updateOrganizationSettings } from '../orgs/org-repository.ts';
import { signUp } from './sign-up.ts';
import { lacksRequiredTwoFactor } from './two-factor-rule.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

describe('lacksRequiredTwoFactor', () => {
  it('follows the organisation setting for members without 2FA only', async () => {
    const { orgId } = await signUp(db.sql, { email: 'rule@example.com', password: 'a long enough password', organisation: 'Rule' });
    expect(await lacksRequiredTwoFactor(db.sql, { orgId, twoFactor: false })).toBe(false);
    const org = await getOrganization(db.sql, orgId);
    const updated = await updateOrganizationSettings(db.sql, orgId, { name: org.name, timezone: org.timezone, require2fa: true });
    expect(updated.require2fa).toBe(true);
    expect((await getOrganization(db.sql, orgId)).require2fa).toBe(true);
    expect(await lacksRequiredTwoFactor(db.sql, { orgId, twoFactor: false })).toBe(true);
    expect(await lacksRequiredTwoFactor(db.sql, { orgId, twoFactor: true })).toBe(false);
    expect(await lacksRequiredTwoFactor(db.sql, { orgId: null, twoFactor: false })).toBe(false);
    expect(await lacksRequiredTwoFactor(db.sql, { orgId: '00000000-0000-4000-8000-000000000000', twoFactor: false })).toBe(false);
  });
});
