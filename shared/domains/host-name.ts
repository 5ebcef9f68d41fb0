// Invariant: a host name is compared only in its normal form: trimmed, lower case, without a
// trailing dot. Custom domains are stored normalised, and a request's Host is normalised once,
// before anything looks it up.
export function normalizeHost(host: string): string {
  const lower = host.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
