// Invariant: the Links page's server side. Reads are the API's list (same DSL, paging) scoped to
// the session's organisation; every write goes through the one save path (saveLink) as
// createdVia/lastModifiedVia INTERNAL with the user's e-mail, so it follows the API's rules and
// reaches every redirector through the same outbox; a delete is the API's delete (tombstone,
// link.deleted, optionally the purge of its events). Nothing here reads another organisation.
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { listApps } from '../../shared/apps/mobile-app-repository.ts';
import { AppError, AppErrorList } from '../../shared/errors/app-error.ts';
import { linkNotFound } from '../../shared/errors/domain-errors.ts';
import { findAppsForOrg } from '../../shared/apps/find-apps-for-org.ts';
import { listLinks, parseListRequest } from '../../shared/links/list-links.ts';
import { findLinkByCode } from '../../shared/links/link-repository.ts';
import { toLinkResponse } from '../../shared/links/link-response.ts';
import { deleteLink } from '../../shared/links/delete-link.ts';
import { saveLink, type Actor } from '../../shared/links/save-link.ts';
import { smartLinkOf } from '../../shared/links/smart-link.ts';
import { resolveLink } from '../../shared/redirects/resolve-link.ts';
import { getOrganization } from '../../shared/orgs/org-repository.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { download, orgIdOf, route, sessionOf } from '../http/route.ts';
import type { FastifyRequest } from 'fastify';

export function registerLinkRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const service = deps.links;
  const actorOf = async (request: FastifyRequest): Promise<Actor> => ({
    org: await getOrganization(deps.sql, orgIdOf(request)),
    attribution: sessionOf(request).email,
    via: 'INTERNAL',
  });
  const ownLink = async (request: FastifyRequest, code: string) => {
    const link = await findLinkByCode(deps.sql, code);
    if (link === null || link.orgId !== orgIdOf(request)) throw linkNotFound(code);
    return link;
  };

  route(app, 'links', 'read', async ({ query, request }) => listLinks(deps.sql, orgIdOf(request), parseListRequest(query), deps.shortLinkBase));

  route(app, 'link', 'read', async ({ params, request }) => {
    const link = await ownLink(request, params.code);
    const apps = await findAppsForOrg(deps.sql, link.orgId, [link]);
    return toLinkResponse(link, apps, { shortLinkBase: deps.shortLinkBase, includeAppId: false });
  });

  route(app, 'saveLink', 'links:write', async ({ body, request }) => (await saveLink(service, await actorOf(request), body)).view);

  route(app, 'deleteLink', 'links:write', async ({ params, body, request }) => {
    const { view } = await deleteLink(service, await actorOf(request), { shortCode: params.code, purgeAnalytics: body.purgeAnalytics }, deps.analyticsPurge);
    return view;
  });

  // The editor's simulator: what the redirector would do, by the API's resolve (records nothing).
  route(app, 'resolveLink', 'read', async ({ body, request }) => resolveLink(service, await getOrganization(deps.sql, orgIdOf(request)), body));

  route(app, 'bulkActive', 'links:write', async ({ body, request }) => {
    const actor = await actorOf(request);
    const updated: string[] = [];
    const failed: { shortCode: string; message: string }[] = [];
    for (const code of new Set(body.shortCodes)) {
      try {
        const link = await ownLink(request, code);
        await saveLink(service, actor, { url: link.url, shortCode: code, isActive: body.isActive });
        updated.push(code);
      } catch (err) {
        if (!(err instanceof AppError) && !(err instanceof AppErrorList)) throw err;
        failed.push({ shortCode: code, message: err.message });
      }
    }
    return { updated, failed };
  });

  download(app, 'linkQr', 'read', async ({ params: { code, format }, request, reply }) => {
    if (format !== 'png' && format !== 'svg') throw new AppError('EN001', `No QR format '${format}'`);
    const link = await ownLink(request, code);
    const text = smartLinkOf(link.domainHost, deps.shortLinkBase, link.shortCode);
    reply.header('content-disposition', `attachment; filename="${link.shortCode}.${format}"`).header('cache-control', 'private, no-store');
    if (format === 'svg') return reply.type('image/svg+xml').send(await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }));
    return reply.type('image/png').send(await QRCode.toBuffer(text, { type: 'png', margin: 2, width: 512, errorCorrectionLevel: 'M' }));
  });

  route(app, 'apps', 'read', async ({ request }) => ({
    apps: (await listApps(deps.sql, orgIdOf(request))).map((a) => ({
      mobileAppId: a.mobileAppId,
      name: a.name,
      platform: a.platform,
      storeUrl: a.storeUrl,
      active: a.active,
    })),
  }));
}
