// Invariant: every dashboard failure is the API's JSON envelope with a catalog code; anything
// unknown is 500 SML001 with nothing of the cause (logged server-side).
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, AppErrorList, errorEnvelope, internalError } from '../../shared/errors/app-error.ts';
import { isDependencyUnreachable } from '../../shared/net/dependency-unreachable.ts';
import { dependencyUnavailable, malformedBody, validationFailed } from '../../shared/errors/domain-errors.ts';

function known(err: unknown): AppError[] | null {
  if (err instanceof AppError) return [err];
  if (err instanceof AppErrorList) return [...err.errors];
  const code = (err as FastifyError | undefined)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return [validationFailed('Request body exceeds the 1 MiB limit')];
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return [malformedBody()];
  if ((err as FastifyError | undefined)?.statusCode === 400 && err instanceof SyntaxError) return [malformedBody()];
  if (isDependencyUnreachable(err)) return [dependencyUnavailable()];
  return null;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request, reply) => {
    let errors = known(err);
    if (!errors) {
      request.log.error({ err }, 'unhandled error');
      errors = [internalError()];
    }
    const [first] = errors;
    for (const e of errors) reply.headers(e.headers);
    return reply
      .code(first?.status ?? 500)
      .type('application/json; charset=utf-8')
      .send(errorEnvelope(errors.map((e) => e.toErrorObject())));
  });
}
