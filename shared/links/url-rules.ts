// Invariant: destination-like URLs (url, fallbackUrl, customMetadataImageUrl, store URLs) are
// absolute http(s) of at most 2048 characters; deeplinkUrl is any absolute URI whose scheme
// neither runs code nor acts on the visitor's machine (REFUSED_DEEP_LINK_SCHEMES and the `ms-`
// handlers, also when an Android `intent:` names them). Neither may hold a raw C0 control
// character or DEL; percent-encoded ones (`%00`, `%0A`) are ordinary URL data and stay. Everything
// else is a pattern violation (SML002). Save (link-request.ts) and answer (safe-url.ts) both test
// with these functions, so a row written before a rule existed is refused when it is served.

export const MAX_URL_LENGTH = 2048;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether the text holds a raw C0 control character (U+0000–U+001F) or DEL (U+007F). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * Schemes a deep link never opens (compared without the colon, case-insensitively): those that
 * run code in the page, and those an operating system hands to local actions (files, network
 * shares, the Windows search and help handlers, archives, shell folders).
 */
export const REFUSED_DEEP_LINK_SCHEMES: readonly string[] = [
  'javascript',
  'data',
  'vbscript',
  'blob',
  'about',
  'filesystem',
  'file',
  'smb',
  'cifs',
  'nfs',
  'afp',
  'ftp',
  'jar',
  'search',
  'search-ms',
  'shell',
  'mk',
  'its',
  'hcp',
  'res',
];

/** Every scheme with this prefix is refused too: Windows' `ms-` handlers (ms-msdt, ms-settings, ms-officecmd, …). */
export const REFUSED_DEEP_LINK_SCHEME_PREFIX = 'ms-';

export function isRefusedDeepLinkScheme(scheme: string): boolean {
  const s = scheme.toLowerCase();
  return REFUSED_DEEP_LINK_SCHEMES.includes(s) || s.startsWith(REFUSED_DEEP_LINK_SCHEME_PREFIX);
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
/** The `scheme=` of an Android intent URI (`intent:…#Intent;scheme=x;…;end`). */
const INTENT_SCHEME = /[#;]scheme=([^;]*)/i;

/** The deep link's scheme is refused, or so is the scheme an `intent:` URI would open. */
export function deepLinkSchemeRefused(uri: string): boolean {
  const m = SCHEME.exec(uri);
  if (!m) return true;
  const scheme = (m[1] ?? '').toLowerCase();
  if (isRefusedDeepLinkScheme(scheme)) return true;
  if (scheme !== 'intent') return false;
  const inner = INTENT_SCHEME.exec(uri);
  return inner !== null && (inner[1] === '' || isRefusedDeepLinkScheme(inner[1] ?? ''));
}

export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value) || hasControlCharacter(value)) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

export function isDeepLinkUri(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value) || hasControlCharacter(value)) return false;
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:./.test(value)) return false;
  return !deepLinkSchemeRefused(value);
}
