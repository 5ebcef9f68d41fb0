// Invariant: a URL placed in a Location header, an href/src attribute or handed to script is
// either an absolute http(s) URL (web targets) or an absolute URI whose scheme cannot run code
// (deep links); anything else is refused (null). Results never contain control characters.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const CODE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:']);

export function safeWebUrl(value: string | null): string | null {
  if (value === null || value === '' || CONTROL.test(value)) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

export function safeDeepLinkUrl(value: string | null): string | null {
  if (value === null || CONTROL.test(value)) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  try {
    const u = new URL(trimmed);
    return CODE_SCHEMES.has(u.protocol) ? null : trimmed;
  } catch {
    return null;
  }
}

/** The Android package of a Google Play store URL (`…/details?id=com.example.app`), if any. */
export function playStorePackage(storeUrl: string): string | null {
  try {
    const u = new URL(storeUrl);
    if (u.hostname !== 'play.google.com') return null;
    const id = u.searchParams.get('id');
    return id !== null && /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

/**
 * Chrome-on-Android intent URL that opens `deeplink` in the app, or navigates to `fallback` when
 * no app handles it. An `intent:` deep link is used as given.
 */
export function androidIntentUrl(deeplink: string, fallback: string, storeUrl: string): string {
  if (deeplink.toLowerCase().startsWith('intent:')) return deeplink;
  const colon = deeplink.indexOf(':');
  const scheme = deeplink.slice(0, colon).toLowerCase();
  const rest = deeplink.slice(colon + 1);
  const hash = rest.indexOf('#');
  const target = hash === -1 ? rest : rest.slice(0, hash);
  const pkg = playStorePackage(storeUrl);
  return `intent:${target}#Intent;scheme=${scheme};${pkg ? `package=${pkg};` : ''}S.browser_fallback_url=${encodeURIComponent(fallback)};end`;
}
