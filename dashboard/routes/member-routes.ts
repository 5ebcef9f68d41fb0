// Invariant: the Members page's server side. Seats = members + pending invitations, a hard quota
// (QE001 SEATS, counted under the organisation's lock in createInvite); owners and admins manage
// members, but admins never touch owners or make one (mayManageRole), and an organisation keeps
// at least one owner. An invitation made here answers its link once, to be copied.
import type { FastifyInstance } from 'fastify';
import { createInvite, inviteUrl, listInvites, revokeInvite, seatsUsed } from '../../shared/accounts/invites.ts';
import { changeRole, listMembers, removeMember } from '../../shared/accounts/memberships.ts';
import { mayManageRole, type Role } from '../../shared/accounts/roles.ts';
import { accessDenied } from '../../shared/errors/domain-errors.ts';
import { getOrganization } from '../../shared/orgs/org-repository.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { orgIdOf, route, sessionOf } from '../http/route.ts';
import type { FastifyRequest } from 'fastify';

export function registerMemberRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const actorRole = (request: FastifyRequest): Role => {
    const role = sessionOf(request).role;
    if (role === null) throw accessDenied();
    return role;
  };

  route(app, 'members', 'read', async ({ request }) => {
    const orgId = orgIdOf(request);
    const [members, invites, org] = await Promise.all([listMembers(deps.sql, orgId), listInvites(deps.sql, orgId), getOrganization(deps.sql, orgId)]);
    const me = sessionOf(request).userId;
    return {
      members: members.map((m) => ({ ...m, you: m.userId === me })),
      invites: invites.map((i) => ({ id: i.id, email: i.email, role: i.role, invitedBy: i.invitedBy, expiresAt: i.expiresAt })),
      seats: { used: await seatsUsed(deps.sql, orgId), limit: org.limits.seats },
    };
  });

  route(app, 'invite', 'members:manage', async ({ body, request }) => {
    if (!mayManageRole(actorRole(request), body.role)) throw accessDenied();
    const { invite, token } = await createInvite(deps.sql, {
      orgId: orgIdOf(request),
      email: body.email,
      role: body.role,
      invitedBy: sessionOf(request).email,
    });
    return { inviteUrl: inviteUrl(deps.publicUrl, token), email: invite.email ?? '', role: invite.role, expiresAt: invite.expiresAt };
  });

  route(app, 'revokeInvite', 'members:manage', async ({ params, request }) => {
    const orgId = orgIdOf(request);
    const pending = (await listInvites(deps.sql, orgId)).find((i) => i.id === params.id);
    if (pending && !mayManageRole(actorRole(request), pending.role)) throw accessDenied();
    await revokeInvite(deps.sql, orgId, params.id);
    return { ok: true as const };
  });

  route(app, 'changeRole', 'members:manage', async ({ body, params, request }) => {
    await changeRole(deps.sql, actorRole(request), orgIdOf(request), params.userId, body.role);
    return { ok: true as const };
  });

  route(app, 'removeMember', 'members:manage', async ({ params, request }) => {
    await removeMember(deps.sql, actorRole(request), orgIdOf(request), params.userId);
    return { ok: true as const };
  });
}
