// Invariant: a server URL is shown (in a log line, an error, a description) only without its
// password, so a credential in DATABASE_URL, REDIS_URL or CLICKHOUSE_URL never reaches a log.

/** `url` with its password replaced by `***`; `(invalid URL)` when it does not parse. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
