// Invariant: the URL rules are pinned with plain values (every C0 control character and DEL, each
// refused scheme in any case, intents), and the README's list of refused deep-link schemes is
// exactly the one in url-rules.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { safeDeepLinkUrl, safeWebUrl } from './safe-url.ts';
import { isDeepLinkUri, isHttpUrl, REFUSED_DEEP_LINK_SCHEME_PREFIX, REFUSED_DEEP_LINK_SCHEMES } from './url-rules.ts';

const CONTROLS = [...Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)), '\u007f'];

describe('raw control characters', () => {
  it.each(CONTROLS.map((c) => [c.charCodeAt(0).toString(16).padStart(4, '0'), c]))(
    'U+%s is refused in web URLs and deep links, at save and at answer',
    (_hex, c) => {
      for (const at of [`https://e.com/a${c}b`, `https://e.com/?q=${c}`, `https://e.com/#${c}`, `https://e.com/${c}`]) {
        expect(isHttpUrl(at)).toBe(false);
        expect(safeWebUrl(at)).toBeNull();
      }
      expect(isDeepLinkUri(`myapp://open${c}x`)).toBe(false);
      expect(safeDeepLinkUrl(`myapp://open${c}x`)).toBeNull();
    },
  );

  it('percent-encoded control characters are URL data', () => {
    expect(isHttpUrl('https://e.com/a%00b?x=%0A%0D%7F')).toBe(true);
    expect(safeWebUrl('https://e.com/a%00b?x=%0A%0D%7F')).toBe('https://e.com/a%00b?x=%0A%0D%7F');
    expect(isDeepLinkUri('myapp://open?x=%0A')).toBe(true);
  });
});

describe('deep-link schemes', () => {
  const refused = [...REFUSED_DEEP_LINK_SCHEMES, 'ms-msdt', 'ms-settings', 'ms-officecmd', 'ms-word', 'ms-appinstaller'];

  it.each(refused)('%s: is refused in any case, and inside an Android intent', (scheme) => {
    for (const s of [scheme, scheme.toUpperCase()]) {
      expect(isDeepLinkUri(`${s}:x/y`)).toBe(false);
      expect(safeDeepLinkUrl(`${s}:x/y`)).toBeNull();
    }
    expect(isDeepLinkUri(`intent://x#Intent;scheme=${scheme};package=com.ex;end`)).toBe(false);
    expect(safeDeepLinkUrl(`intent://x#Intent;scheme=${scheme};end`)).toBeNull();
  });

  it('app schemes, web links, mail and phone, and intents to app schemes are allowed', () => {
    for (const uri of [
      'myapp://open/1',
      'fb://profile/1',
      'https://e.com/universal',
      'mailto:a@e.com',
      'tel:+4930123',
      'intent://open#Intent;scheme=myapp;package=com.ex;end',
      'msapp://x',
      'searchapp://x',
    ]) {
      expect(isDeepLinkUri(uri)).toBe(true);
      expect(safeDeepLinkUrl(uri)).toBe(uri);
    }
  });

  it("the README's Security section names exactly these schemes", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const bullet = /- \*\*Deep links never open local-action schemes\*\*[\s\S]*?(?=\n- |\n\n)/.exec(readme)?.[0] ?? '';
    // The named schemes come between "store URL):" and "and every `ms-` handler".
    const names = bullet.slice(bullet.indexOf('store URL):'), bullet.indexOf(', and every'));
    const listed = names.match(/`[a-z-]+:`/g)?.map((s) => s.slice(1, -2)) ?? [];
    const prefixes = [...bullet.matchAll(/every `([a-z]+-)` handler/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...REFUSED_DEEP_LINK_SCHEMES].sort());
    expect(prefixes).toEqual([REFUSED_DEEP_LINK_SCHEME_PREFIX]);
  });
});
