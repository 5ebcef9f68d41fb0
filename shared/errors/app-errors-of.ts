// Invariant: one mapping from a thrown value to the errors a client is answered with, for every
// process and every per-record answer (bulk saves): an AppError or AppErrorList as it is, an
// unreachable dependency (Postgres, Redis) as 503 SML006 with Retry-After; anything else is
// unknown (null), answered SML001 and logged by the caller.
import { AppError, AppErrorList } from './app-error.ts';
import { isDependencyUnreachable } from '../net/dependency-unreachable.ts';
import { dependencyUnavailable } from './domain-errors.ts';

export function appErrorsOf(err: unknown): AppError[] | null {
  if (err instanceof AppError) return [err];
  if (err instanceof AppErrorList) return [...err.errors];
  if (isDependencyUnreachable(err)) return [dependencyUnavailable()];
  return null;
}
