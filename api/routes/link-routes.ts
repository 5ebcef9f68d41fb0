// Invariant: the link routes only translate HTTP to the link services and back; every rule lives
// in shared/links. A bulk request costs one crud token and processes each record on its own.
import type { FastifyInstance } from 'fastify';
import { dependencyUnavailable, validationFailed } from '../../shared/errors/domain-errors.ts';
import type { Principal } from '../../shared/keys/principal.ts';
import { bulkSaveLinks } from '../../shared/links/bulk-save-links.ts';
import { deleteLink, type LinkEventsPurge } from '../../shared/links/delete-link.ts';
import { listLinks, parseListRequest } from '../../shared/links/list-links.ts';
import { saveLink, type Actor } from '../../shared/links/save-link.ts';
import { resolveLink } from '../../shared/redirects/resolve-link.ts';
import type { ApiDeps } from '../api-deps.ts';
import { principalOf, type RouteAuth } from '../authorize.ts';

/** Where no analytics store is wired: a purge cannot run (503), so nothing is deleted with purgeAnalytics. */
const NO_PURGE: LinkEventsPurge = {
  assertReady: () => {
    throw dependencyUnavailable();
  },
  purgeLink: async () => {
    throw dependencyUnavailable();
  },
};

const actorOf = (p: Principal): Actor => ({ org: p.org, attribution: `api-key:${p.label}`, via: 'EXTERNAL' });

const WRITE: { config: { auth: RouteAuth } } = { config: { auth: { scope: 'links:write', bucket: 'crud' } } };
const READ: { config: { auth: RouteAuth } } = { config: { auth: { scope: 'links:read', bucket: 'crud' } } };

export function registerLinkRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { links } = deps;

  app.post('/link/external/v1/shortenedUrl/save', WRITE, async (request) => {
    const { view } = await saveLink(links, actorOf(principalOf(request)), request.body);
    return { response: view };
  });

  app.post('/link/external/v1/shortenedUrl/bulkSave', WRITE, async (request) => ({
    response: await bulkSaveLinks(links, actorOf(principalOf(request)), request.body, request.log),
  }));

  // The Short URL object as it was; with purgeAnalytics its events are purged after the delete.
  app.post('/link/external/v1/shortenedUrl/delete', WRITE, async (request) => {
    const { view } = await deleteLink(links, actorOf(principalOf(request)), request.body, deps.analyticsPurge ?? NO_PURGE);
    return { response: view };
  });

  app.post('/link/external/v1/shortenedUrl/resolve', READ, async (request) => ({
    response: await resolveLink(links, principalOf(request).org, request.body),
  }));

  app.get('/link/external/v1/shortenedUrl', READ, async (request) => {
    const principal = principalOf(request);
    const query = request.query as Record<string, unknown>;
    if (query.format !== undefined) throw validationFailed('format is not a parameter of this endpoint');
    const result = await listLinks(links.sql, principal.org.id, parseListRequest(query), links.shortLinkBase);
    return { response: result };
  });
}
