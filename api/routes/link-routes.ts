// Invariant: the link routes only translate HTTP to the link services and back; every rule lives
// in shared/links. A bulk request costs one crud token and processes each record on its own.
import type { FastifyInstance } from 'fastify';
import { AppError, AppErrorList } from '../../shared/errors/app-error.ts';
import { constraintViolated, malformedBody, validationFailed } from '../../shared/errors/domain-errors.ts';
import type { Principal } from '../../shared/keys/key-repository.ts';
import { listLinks, parseListRequest } from '../../shared/links/list-links.ts';
import { saveLink, type Actor, type LinkServiceDeps } from '../../shared/links/save-link.ts';
import type { ApiDeps } from '../api-deps.ts';
import { principalOf, type RouteAuth } from '../authorize.ts';

export const BULK_MAX = 30;

const actorOf = (p: Principal): Actor => ({ org: p.org, attribution: `api-key:${p.label}`, via: 'EXTERNAL' });

export function linkServiceDeps(deps: ApiDeps): LinkServiceDeps {
  return {
    sql: deps.sql,
    shortLinkBase: deps.shortLinkBase,
    onDestinationSaved: deps.onDestinationSaved,
    now: deps.now,
  };
}

const WRITE: { config: { auth: RouteAuth } } = { config: { auth: { scope: 'links:write', bucket: 'crud' } } };
const READ: { config: { auth: RouteAuth } } = { config: { auth: { scope: 'links:read', bucket: 'crud' } } };

export function registerLinkRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const service = linkServiceDeps(deps);

  app.post('/link/external/v1/shortenedUrl/save', WRITE, async (request) => {
    const principal = principalOf(request);
    const { view } = await saveLink(service, actorOf(principal), request.body);
    return { response: view };
  });

  app.post('/link/external/v1/shortenedUrl/bulkSave', WRITE, async (request) => {
    const principal = principalOf(request);
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformedBody();
    const data = (body as { data?: unknown }).data;
    if (data === undefined || data === null) throw constraintViolated('data: must not be empty');
    if (!Array.isArray(data)) throw validationFailed('data: must be of type array');
    if (data.length < 1 || data.length > BULK_MAX) throw constraintViolated(`data: size must be between 1 and ${BULK_MAX}`);

    const actor = actorOf(principal);
    const successRecords: object[] = [];
    const failureRecords: object[] = [];
    for (const [index, record] of data.entries()) {
      try {
        const { view } = await saveLink(service, actor, record);
        successRecords.push({
          shortCode: view.shortCode,
          url: view.url,
          ...(view.shortLinkName !== undefined ? { shortLinkName: view.shortLinkName } : {}),
          smartLink: view.smartLink,
          isActive: view.isActive,
          createdVia: view.createdVia,
          lastModifiedVia: view.lastModifiedVia,
        });
      } catch (err) {
        const errors = err instanceof AppError ? [err] : err instanceof AppErrorList ? [...err.errors] : null;
        if (!errors) {
          request.log.error({ err, index }, 'bulkSave record failed unexpectedly');
          failureRecords.push({ index, record, errors: [new AppError('SML001').toErrorObject()] });
        } else {
          failureRecords.push({ index, record, errors: errors.map((e) => e.toErrorObject()) });
        }
      }
    }
    return {
      response: {
        successRecords,
        failureRecords,
        bulkSaveSummary: { successCount: successRecords.length, failureCount: failureRecords.length },
      },
    };
  });

  app.get('/link/external/v1/shortenedUrl', READ, async (request) => {
    const principal = principalOf(request);
    const query = request.query as Record<string, unknown>;
    if (query.format !== undefined) throw validationFailed('format is not a parameter of this endpoint');
    const result = await listLinks(deps.sql, principal.org.id, parseListRequest(query), deps.shortLinkBase);
    return { response: result };
  });
}
