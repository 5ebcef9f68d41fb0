// Invariant: destination-like URLs (url, fallbackUrl, customMetadataImageUrl, store URLs) are
// absolute http(s) of at most 2048 characters; deeplinkUrl is any absolute URI whose scheme is not
// javascript or data. Everything else is a pattern violation (SML002).

export const MAX_URL_LENGTH = 2048;

export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value)) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

export function isDeepLinkUri(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value)) return false;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):./.exec(value);
  if (!m) return false;
  const scheme = m[1]!.toLowerCase();
  return scheme !== 'javascript' && scheme !== 'data' && scheme !== 'vbscript';
}
