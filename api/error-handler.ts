// Invariant: every failure leaves the API as the JSON envelope with a catalog code. Body-parsing
// failures of Fastify become VE001; an unreachable dependency is 503 SML006; anything unknown becomes 500 SML001 with nothing of the
// cause (it is logged server-side instead).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorEnvelope, internalError } from '../shared/errors/app-error.ts';
import { appErrorsOf } from '../shared/errors/app-errors-of.ts';
import { malformedBody, validationFailed } from '../shared/errors/domain-errors.ts';

function sendErrors(reply: FastifyReply, errors: readonly AppError[]): FastifyReply {
  const [first] = errors;
  if (first === undefined) throw new Error('sendErrors needs at least one error');
  for (const e of errors) reply.headers(e.headers);
  return reply
    .code(first.status)
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(errors.map((e) => e.toErrorObject())));
}

export function toAppErrors(err: unknown): AppError[] | null {
  const code = (err as FastifyError | undefined)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return [validationFailed('Request body exceeds the 1 MiB limit')];
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return [malformedBody()];
  const status = (err as FastifyError | undefined)?.statusCode;
  if (status === 400 && err instanceof SyntaxError) return [malformedBody()];
  // Domain errors; Postgres (or Redis without a local fallback) down: 503 with Retry-After, not a 500.
  return appErrorsOf(err);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppErrors(err);
    if (known) return sendErrors(reply, known);
    request.log.error({ err }, 'unhandled error');
    return sendErrors(reply, [internalError()]);
  });
  app.setNotFoundHandler((request, reply) => sendErrors(reply, [new AppError('EN001', `No endpoint ${request.method} ${request.url.split('?')[0]}`)]));
}
