// Invariant: a page "refuses framing" when its final response carries X-Frame-Options (DENY,
// SAMEORIGIN or ALLOW-FROM: none of them lets the short-link host frame it) or an enforced CSP
// policy whose frame-ancestors does not allow any origin (`*`, or the http:/https: schemes).

export function refusesFraming(xFrameOptions: string | undefined, contentSecurityPolicy: string | undefined): boolean {
  if (xFrameOptions !== undefined && xFrameOptions.trim() !== '') {
    const v = xFrameOptions.trim().toLowerCase();
    if (v.startsWith('deny') || v.startsWith('sameorigin') || v.startsWith('allow-from')) return true;
  }
  if (contentSecurityPolicy === undefined) return false;
  // Several policies may be joined with commas; each one is enforced.
  for (const policy of contentSecurityPolicy.split(',')) {
    for (const directive of policy.split(';')) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (name?.toLowerCase() !== 'frame-ancestors') continue;
      const allowsAny = sources.some((s) => s === '*' || s.toLowerCase() === 'https:' || s.toLowerCase() === 'http:');
      if (!allowsAny) return true;
    }
  }
  return false;
}
