// Invariant: a dashboard route is declared with its name (contract/routes.ts), who may call it
// and its handler; the body is parsed by the route's zod schema before the handler runs, and a
// field's problem answers 400 VE001 with details.field naming it. Access levels:
// - 'public': no session (sign-in, invitations); state-changing ones still check Origin;
// - 'second_factor': a session waiting for its TOTP or recovery code;
// - 'user': a signed-in user, whatever the organisation;
// - a Permission: a signed-in user whose role in the session's organisation grants it (403
//   otherwise), and who has 2FA when the organisation requires it (403 AU005).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Permission } from '../../shared/accounts/roles.ts';
import type { Session } from '../../shared/accounts/sessions.ts';
import { AppError, AppErrorList } from '../../shared/errors/app-error.ts';
import { fieldProblem } from '../../shared/errors/domain-errors.ts';
import { DOWNLOADS, type DownloadName, type ParamsOf, ROUTES, type RouteName } from '../contract/routes.ts';
import { SCHEMAS, type BodyOf, type ResponseOf } from '../contract/schemas.ts';

export type Access = 'public' | 'second_factor' | 'user' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    session: Session | null;
  }
}

export interface Ctx<K extends RouteName> extends DownloadCtx<K> {
  body: BodyOf<K>;
}

export interface DownloadCtx<K extends RouteName | DownloadName> {
  params: ParamsOf<K>;
  query: Record<string, string | undefined>;
  request: FastifyRequest;
  reply: FastifyReply;
}

function fieldErrors(issues: readonly z.core.$ZodIssue[]): AppErrorList {
  return new AppErrorList(
    issues.map((i) => {
      const field = i.path.map(String).join('.') || 'body';
      return fieldProblem(field, i.code === 'invalid_type' && (i as { input?: unknown }).input === undefined ? 'is required' : i.message);
    }),
  );
}

export function route<K extends RouteName>(app: FastifyInstance, name: K, access: Access, handler: (ctx: Ctx<K>) => Promise<ResponseOf<K>>): void {
  const [method, url] = ROUTES[name];
  const schema = SCHEMAS[name] as { body?: z.ZodType };
  app.route({
    method,
    url,
    config: { access },
    handler: async (request, reply) => {
      // Without a body schema the body goes on as sent (to code that checks it itself, like saveLink).
      let body: unknown = request.body;
      if (schema.body) {
        const parsed = schema.body.safeParse(request.body ?? {}, { reportInput: true });
        if (!parsed.success) throw fieldErrors(parsed.error.issues);
        body = parsed.data;
      }
      return handler({
        body: body as BodyOf<K>,
        params: (request.params ?? {}) as ParamsOf<K>,
        query: (request.query ?? {}) as Record<string, string | undefined>,
        request,
        reply,
      });
    },
  });
}

/** A file download (GET, not JSON): declared like a route, by its name in DOWNLOADS; the handler sends the file. */
export function download<K extends DownloadName>(app: FastifyInstance, name: K, access: Access, handler: (ctx: DownloadCtx<K>) => Promise<FastifyReply>): void {
  app.route({
    method: 'GET',
    url: DOWNLOADS[name],
    config: { access },
    handler: async (request, reply) =>
      handler({
        params: (request.params ?? {}) as ParamsOf<K>,
        query: (request.query ?? {}) as Record<string, string | undefined>,
        request,
        reply,
      }),
  });
}

/** The session the access hook established (routes above 'public'). */
export function sessionOf(request: FastifyRequest): Session {
  if (request.session === null) throw new AppError('AU001');
  return request.session;
}

/** The session's organisation (routes that require a Permission have one). */
export function orgIdOf(request: FastifyRequest): string {
  const s = sessionOf(request);
  if (s.orgId === null) throw new AppError('SML010');
  return s.orgId;
}
