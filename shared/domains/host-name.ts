// Invariant: a host name is compared only in its normal form, computed once by normalizeHost:
// trimmed, lower case, without a port, without IPv6 brackets, without a trailing dot. A request's
// Host that is not a valid host name (or longer than 253 characters) normalises to '' (no host:
// served like the default host, per DECISIONS.md § Hosts, since no custom domain can match it).
// Custom domains are stored normalised, and a domain is registered only from a bare host name.
import { isIPv6 } from 'node:net';

export const MAX_HOST_NAME_LENGTH = 253;

const LABELS = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** True when `host` (already normalised) is a DNS host name or an IP address literal. */
export function isValidHostName(host: string): boolean {
  return host.length <= MAX_HOST_NAME_LENGTH && (LABELS.test(host) || isIPv6(host));
}

/**
 * The normal form of a Host header (or of a configured host): lower case, port, IPv6 brackets
 * and trailing dot removed; '' when what is left is not a valid host name.
 */
export function normalizeHost(raw: string): string {
  // A Host longer than a host name, a port and brackets cannot be valid: not even lower-cased.
  if (raw.length > MAX_HOST_NAME_LENGTH + 16) return '';
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return '';
    const rest = host.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return '';
    host = host.slice(1, end);
    return isIPv6(host) ? host : '';
  }
  const colon = host.indexOf(':');
  if (colon >= 0) {
    // A bare IPv6 literal has several colons; a name or IPv4 address has at most the port's one.
    if (host.indexOf(':', colon + 1) >= 0) return isIPv6(host) ? host : '';
    if (!/^\d{1,5}$/.test(host.slice(colon + 1))) return '';
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return isValidHostName(host) ? host : '';
}

/**
 * A custom domain as an administrator typed it, normalised; an error message when it names a
 * port, a path or scheme, or is not a valid host name.
 */
export function parseDomainHost(input: string): { host: string } | { error: string } {
  const trimmed = input.trim();
  if (/[/\s@]/.test(trimmed)) return { error: `'${input}' is not a host name (no scheme, path or spaces)` };
  if (/:\d*$/.test(trimmed) && !isIPv6(trimmed)) return { error: `'${input}' names a port; a custom domain is a host name only (e.g. go.example.com)` };
  const host = normalizeHost(trimmed);
  if (host === '' || isIPv6(host) || host.startsWith('[')) return { error: `'${input}' is not a valid host name` };
  return { host };
}
