// Invariant: usage (everyone may see it) and the organisation's settings, its tracking switches
// and retention included (owners change them).
import type { FastifyInstance } from 'fastify';
import { seatsUsed } from '../../shared/accounts/invites.ts';
import { countActiveDomains } from '../../shared/domains/domain-repository.ts';
import { getOrganization, setRetention, setTracking, updateOrganizationSettings } from '../../shared/orgs/org-repository.ts';
import { MAX_RETENTION_DAYS, parseRetentionDays } from '../../shared/analytics/model/retention.ts';
import { usageReport } from '../../shared/quotas/usage-report.ts';
import type { Organization } from '../../shared/orgs/organization.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { orgIdOf, route, sessionOf } from '../http/route.ts';
import { fieldProblem } from '../../shared/errors/domain-errors.ts';

export function registerOrgRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const orgView = (org: Organization) => ({
    id: org.id,
    name: org.name,
    plan: org.plan,
    timezone: org.timezone,
    require2fa: org.require2fa,
    tracking: org.tracking,
    retentionDays: org.retentionDays,
    serviceRetentionDays: deps.retentionDays,
  });

  route(app, 'usage', 'read', async ({ request }) => {
    const org = await getOrganization(deps.sql, orgIdOf(request));
    const report = await usageReport(deps.sql, org, deps.now());
    return {
      plan: report.plan,
      periodStart: report.periodStart,
      links: report.links,
      clicks: report.clicks,
      totalOverageEur: report.totalOverageEur,
      seats: { used: await seatsUsed(deps.sql, org.id), limit: org.limits.seats },
      domains: { used: await countActiveDomains(deps.sql, org.id), limit: org.limits.customDomains },
    };
  });

  route(app, 'org', 'read', async ({ request }) => orgView(await getOrganization(deps.sql, orgIdOf(request))));

  route(app, 'updateOrg', 'org:settings', async ({ body, request }) => {
    // An owner without 2FA who required it would lock themselves out of this very page.
    if (body.require2fa && !sessionOf(request).twoFactor) {
      throw fieldProblem('require2fa', 'set up two-factor authentication for yourself first (Your account)');
    }
    return orgView(await updateOrganizationSettings(deps.sql, orgIdOf(request), body));
  });

  route(app, 'updatePrivacy', 'org:settings', async ({ body, request }) => {
    const days = parseRetentionDays(body.retentionDays);
    // Checked before either change is made, so a refused retention changes no switch.
    if (days === undefined) {
      throw fieldProblem('retentionDays', `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or empty to follow the service`);
    }
    const orgId = orgIdOf(request);
    await setTracking(deps.sql, orgId, body.tracking);
    return orgView(await setRetention(deps.sql, orgId, days));
  });
}
