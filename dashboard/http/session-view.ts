// Invariant: what the SPA learns about the signed-in user is built here, from the database as it
// is now (role, 2FA rule), never from what the page sent.
import { membershipsOf } from '../../shared/accounts/memberships.ts';
import { permissionsOf } from '../../shared/accounts/roles.ts';
import type { Session } from '../../shared/accounts/sessions.ts';
import { findOrganization } from '../../shared/orgs/org-repository.ts';
import type { SessionView } from '../contract/schemas.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';

export async function sessionView(deps: DashboardDeps, s: Session): Promise<SessionView> {
  const orgs = s.stage === 'full' ? await membershipsOf(deps.sql, s.userId) : [];
  let org: SessionView['org'] = null;
  if (s.stage === 'full' && s.orgId !== null && s.role !== null) {
    const found = await findOrganization(deps.sql, s.orgId);
    if (found)
      org = {
        id: found.id,
        name: found.name,
        plan: found.plan,
        timezone: found.timezone,
        role: s.role,
        require2fa: found.require2fa,
        permissions: permissionsOf(s.role),
      };
  }
  return {
    stage: s.stage,
    csrfToken: s.csrfToken,
    user: { email: s.email, twoFactor: s.twoFactor },
    org,
    orgs: orgs.map((o) => ({ id: o.orgId, name: o.orgName, role: o.role })),
    signUp: deps.signUp === 'open',
  };
}
