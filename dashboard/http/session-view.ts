// Invariant: what the SPA learns about the signed-in user is built here, from the database as it
// is now (role, 2FA rule), never from what the page sent.
import { membershipsOf } from '../../shared/accounts/memberships.ts';
import { permissionsOf } from '../../shared/accounts/roles.ts';
import type { Session } from '../../shared/accounts/sessions.ts';
import type { SessionView } from '../contract/schemas.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';

export async function sessionView(deps: DashboardDeps, s: Session): Promise<SessionView> {
  const orgs = s.stage === 'full' ? await membershipsOf(deps.sql, s.userId) : [];
  let org: SessionView['org'] = null;
  if (s.stage === 'full' && s.orgId !== null && s.role !== null) {
    const [row] = await deps.sql<{ name: string; plan: string; timezone: string; require_2fa: boolean }[]>`
      select name, plan, timezone, require_2fa from organizations where id = ${s.orgId}`;
    if (row)
      org = {
        id: s.orgId,
        name: row.name,
        plan: row.plan,
        timezone: row.timezone,
        role: s.role,
        require2fa: row.require_2fa,
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
