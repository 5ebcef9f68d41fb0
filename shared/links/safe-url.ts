// Invariant: a URL placed in a Location header, an href/src attribute or handed to script is
// either an absolute http(s) URL, normalised as `new URL(u).href` (web targets), or an absolute
// URI whose scheme url-rules.ts does not refuse (deep links); anything else is refused (null).
// Results never contain control characters. Stored values are checked here again because a row
// may predate a save rule.
import { deepLinkSchemeRefused, hasControlCharacter } from './url-rules.ts';

export function safeWebUrl(value: string | null): string | null {
  if (value === null || value === '' || hasControlCharacter(value)) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

export function safeDeepLinkUrl(value: string | null): string | null {
  if (value === null || hasControlCharacter(value)) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (!URL.canParse(trimmed) || deepLinkSchemeRefused(trimmed)) return null;
  return trimmed;
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
