// Invariant: an AppError is the only way a domain failure reaches a client. Its code is a key of
// the error catalog, so its HTTP status can never disagree with the documentation. It is an
// expected outcome (an unknown code, a bad field), not a bug, so it carries no stack trace:
// capturing one cost more than the rest of a redirector 404.
import { ERROR_CATALOG, type ErrorCode } from './error-catalog.ts';

export type ErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

export interface ErrorObject {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers, e.g. Retry-After for SML005. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, headers: Record<string, string> = {}) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? ERROR_CATALOG[code].message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = `AppError(${code})`;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }

  toErrorObject(): ErrorObject {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

export function errorEnvelope(errors: readonly ErrorObject[]): { errors: ErrorObject[] } {
  return { errors: [...errors] };
}

export function internalError(): AppError {
  return new AppError('SML001');
}

/** Several errors of one class answered together (e.g. every SML002 of a body). */
export class AppErrorList extends Error {
  constructor(readonly errors: readonly AppError[]) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'AppErrorList';
    if (errors.length === 0) throw new Error('AppErrorList needs at least one error');
  }

  get status(): number {
    return this.errors[0]?.status ?? 500;
  }
}
