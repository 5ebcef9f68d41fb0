// Invariant: one rule tells "a dependency could not be reached" (connection refused, reset, timed
// out, closed, or the server is shutting down or full) from "the dependency refused this request".
// The first is answered 503 SML006 with Retry-After by every process; the second stays what it is.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET']);
/** postgres.js connection errors. */
const CLIENT_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);
/** SQLSTATEs of a server going away or refusing connections: admin/crash shutdown, cannot connect now, too many connections, connection exceptions. */
const SERVER_STATES = /^(57P0[123]|53300|08\d{3})$/;

/** True when `err` (or one of its causes) says a dependency could not be reached. */
export function isDependencyUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || CLIENT_CODES.has(code) || SERVER_STATES.test(code))) return true;
    if (/ECONNREFUSED|ECONNRESET|socket hang up|Timeout error|timed out/i.test(e.message)) return true;
  }
  return false;
}
