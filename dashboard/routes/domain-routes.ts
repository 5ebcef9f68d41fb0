// Invariant: custom domains on the dashboard. Everyone sees them; owners and admins add (PENDING,
// checked at once and then on the schedule), check now and remove. A host another organisation
// serves is refused with a message naming the field; only ACTIVE domains serve (save, smartLink,
// redirects, the TLS ask endpoint).
import type { FastifyInstance } from 'fastify';
import {
  addDomainToVerify,
  challengeRecord,
  type DomainState,
  findDomainState,
  listDomainStates,
  removeDomainById,
} from '../../shared/domains/domain-verification.ts';
import { AppError } from '../../shared/errors/app-error.ts';
import { getOrganization } from '../../shared/orgs/org-repository.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { orgIdOf, route } from '../http/route.ts';

const view = (d: DomainState) => ({
  id: String(d.id),
  host: d.host,
  status: d.status,
  isPrimary: d.isPrimary,
  record: d.token ? challengeRecord(d.host, d.token) : null,
  createdAt: d.createdAt,
  lastCheckedAt: d.lastCheckedAt,
  nextCheckAt: d.status === 'PENDING' ? d.nextCheckAt : null,
  verifiedAt: d.verifiedAt,
  lastCheckError: d.status === 'ACTIVE' ? null : d.lastCheckError,
  pointsAtDefault: d.pointsAtDefault,
});

export function registerDomainRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const own = async (orgId: string, id: string): Promise<DomainState> => {
    const found = /^\d{1,15}$/.test(id) ? await findDomainState(deps.sql, orgId, Number(id)) : null;
    if (!found) throw new AppError('EN001', 'Domain not found');
    return found;
  };

  route(app, 'domains', 'read', async ({ request }) => ({
    domains: (await listDomainStates(deps.sql, orgIdOf(request))).map(view),
    defaultHost: new URL(deps.shortLinkBase).hostname,
  }));

  route(app, 'addDomain', 'integrations:manage', async ({ body, request }) => {
    const added = await addDomainToVerify(deps.sql, await getOrganization(deps.sql, orgIdOf(request)), body.host);
    // Checked at once: a record put in place beforehand verifies it immediately.
    return view(await deps.domains.checkNow(added).catch(() => added));
  });

  route(app, 'checkDomain', 'integrations:manage', async ({ params, request }) => view(await deps.domains.checkNow(await own(orgIdOf(request), params.id))));

  route(app, 'removeDomain', 'integrations:manage', async ({ params, request }) => {
    const d = await own(orgIdOf(request), params.id);
    await removeDomainById(deps.sql, orgIdOf(request), d.id);
    return { ok: true as const };
  });
}
