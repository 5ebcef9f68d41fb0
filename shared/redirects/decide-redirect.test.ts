// Invariant: every branch of the pure decision is pinned here with plain values: no server, no
// database, no clock other than the one passed in.
import { botCategoryOf } from './crawler-detection.ts';
import { describe, expect, it } from 'vitest';
import type { MobileApp } from '../apps/mobile-app-repository.ts';
import type { DeepLink, Link, StoredLink } from '../links/link.ts';
import { domainOf, linkOf, mobileAppOf, organizationOf } from '../../test/support/model-fixtures.ts';
import { decideRedirect, quotaApplies, type DecisionInput, type Decision, type HttpAnswer } from './decide-redirect.ts';
import type { RequestFacts } from './request-facts.ts';

const NOW = Date.UTC(2026, 1, 10, 12, 0, 0); // 2026-02-10
const FEB_END = Date.UTC(2026, 2, 1) / 1000;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

const ORG = 'org-1';
function link(over: Partial<StoredLink> = {}): Link {
  return linkOf({ orgId: ORG, shortCode: 'abcdefg', url: 'https://dest.example/p?x=1', utmSource: 'src', ...over });
}

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    method: 'GET',
    host: 'sho.rt',
    qr: false,
    accept: '',
    userAgent: DESKTOP,
    referrer: null,
    secFetchDest: '',
    secFetchMode: '',
    acceptLanguage: '',
    doNotTrack: false,
    query: '',
    ip: '1.2.3.4',
    bot: botCategoryOf(over.userAgent ?? DESKTOP),
    ...over,
  };
}

function input(over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    route: { kind: 'visit', shortCode: 'abcdefg' },
    link: link(),
    hostDomain: null,
    linkDomain: null,
    org: organizationOf(ORG, 'PRO'),
    apps: new Map(),
    quota: { allowed: true },
    shortLinkBase: 'https://sho.rt',
    country: null,
    clicksExhausted: false,
    passwordOk: false,
    ...over,
  };
}

function answer(d: Decision): HttpAnswer {
  if (d.kind !== 'answer') throw new Error(`expected an HTTP answer, got ${d.kind}`);
  return d;
}

const app = (platform: MobileApp['platform'], over: Partial<MobileApp> = {}): MobileApp =>
  mobileAppOf(platform, ORG, {
    storeUrl: platform === 'ANDROID' ? 'https://play.google.com/store/apps/details?id=com.ex.app' : `https://store.example/${platform}`,
    ...over,
  });
const entry = (platform: MobileApp['platform'], over: Partial<DeepLink> = {}): DeepLink => ({
  appRowId: 1,
  mobileAppId: `app-${platform}`,
  deeplinkUrl: 'ex://open/1',
  fallbackUrl: 'https://fallback.example/',
  linkBehaviour: 'app',
  fallbackEnabled: false,
  ...over,
});
const appsOf = (...list: MobileApp[]) => new Map(list.map((a) => [a.mobileAppId, a] as const));

describe('errors', () => {
  it('unknown code → 404 EN001 as JSON, or HTML when the client prefers it; no hit', () => {
    const d = answer(decideRedirect(input({ link: null }), facts(), NOW));
    expect(d).toMatchObject({ status: '404 Not Found', contentType: 'application/json', outcome: 'not_found', hit: null });
    expect(JSON.parse(d.body)).toEqual({ errors: [{ code: 'EN001', message: "Short URL with shortCode 'abcdefg' not found" }] });
    const h = answer(decideRedirect(input({ link: null }), facts({ accept: 'text/html' }), NOW));
    expect(h.contentType).toBe('text/html; charset=utf-8');
    expect(h.body).toContain('EN001');
  });

  it("a custom domain does not serve another organisation's code", () => {
    const d = answer(decideRedirect(input({ hostDomain: domainOf('c.test', 'other') }), facts(), NOW));
    expect(d.outcome).toBe('not_found');
    expect(answer(decideRedirect(input({ hostDomain: domainOf('c.test', ORG) }), facts(), NOW)).outcome).toBe('redirect');
  });

  it('archived → 410 EN002', () => {
    const d = answer(decideRedirect(input({ link: link({ isActive: false }) }), facts(), NOW));
    expect(d.status).toBe('410 Gone');
    expect(JSON.parse(d.body)).toEqual({ errors: [{ code: 'EN002', message: 'Link is no longer active' }] });
  });

  it('a suspended organisation → 403 SML010 "Access denied" as JSON or HTML, no hit, for visits, crawlers, QR and archived links alike', () => {
    const suspended = { ...organizationOf(ORG, 'PRO'), suspended: true };
    const d = answer(decideRedirect(input({ org: suspended }), facts(), NOW));
    expect(d).toMatchObject({ status: '403 Forbidden', location: null, contentType: 'application/json', outcome: 'suspended', hit: null });
    expect(JSON.parse(d.body)).toEqual({ errors: [{ code: 'SML010', message: 'Access denied' }] });
    const h = answer(decideRedirect(input({ org: suspended }), facts({ accept: 'text/html,application/xhtml+xml' }), NOW));
    expect(h).toMatchObject({ status: '403 Forbidden', contentType: 'text/html; charset=utf-8', outcome: 'suspended', hit: null });
    expect(h.body).toContain('<h1>Access denied</h1>');
    expect(h.body).toContain('<code>SML010</code>');
    expect(answer(decideRedirect(input({ org: suspended }), facts({ userAgent: 'facebookexternalhit/1.1' }), NOW))).toMatchObject({
      outcome: 'suspended',
      hit: null,
    });
    expect(answer(decideRedirect(input({ org: suspended, route: { kind: 'qr', shortCode: 'abcdefg', format: 'svg' } }), facts(), NOW)).outcome).toBe(
      'suspended',
    );
    expect(answer(decideRedirect(input({ org: suspended, link: link({ isActive: false }) }), facts(), NOW)).outcome).toBe('suspended');
    // an unknown code stays unknown; the same organisation active again redirects
    expect(answer(decideRedirect(input({ org: suspended, link: null }), facts(), NOW)).outcome).toBe('not_found');
    expect(answer(decideRedirect(input({ org: { ...suspended, suspended: false } }), facts(), NOW)).outcome).toBe('redirect');
  });

  it('FREE quota exhausted → 402 QE002 with periodEnd from the clock', () => {
    const quota = { allowed: false as const, currentClicks: 10, clicksLimit: 10, periodEnd: 0, plan: 'FREE' as const };
    const d = answer(decideRedirect(input({ quota }), facts(), NOW));
    expect(d).toMatchObject({ status: '402 Payment Required', outcome: 'quota_exhausted', hit: null });
    expect(JSON.parse(d.body).errors[0]).toEqual({
      code: 'QE002',
      message: 'Click quota exhausted',
      details: {
        kind: 'click_quota_exhausted',
        shortCode: 'abcdefg',
        currentClicks: 10,
        clicksLimit: 10,
        periodEnd: FEB_END,
        currentPlan: 'FREE',
        suggestedUpgradeTo: 'PRO',
      },
    });
  });
});

describe('plain redirect', () => {
  it('302 to the destination with UTM, a CLICK hit with the click source; HEAD: no hit', () => {
    const d = answer(decideRedirect(input(), facts({ secFetchMode: 'navigate', secFetchDest: 'document' }), NOW));
    expect(d).toMatchObject({
      status: '302 Found',
      location: 'https://dest.example/p?x=1&utm_source=src',
      body: '',
      hit: { eventType: 'CLICK', clickSource: 'DIRECT' },
    });
    expect(answer(decideRedirect(input(), facts({ method: 'HEAD' }), NOW))).toMatchObject({ status: '302 Found', hit: null });
    expect(answer(decideRedirect(input(), facts({ qr: true }), NOW)).hit?.clickSource).toBe('QR_CODE');
  });
});

describe('Location is the normalised destination (rows may predate the save rules)', () => {
  it('is built from new URL(u).href, never from the stored text', () => {
    const odd = link({ url: 'HTTPS://Dest.EXAMPLE:443/a b/ü?q=x y#f g', utmSource: null });
    expect(answer(decideRedirect(input({ link: odd }), facts(), NOW)).location).toBe('https://dest.example/a%20b/%C3%BC?q=x%20y#f%20g');
    const bare = link({ url: 'https://dest.example', utmSource: 'u' });
    expect(answer(decideRedirect(input({ link: bare }), facts(), NOW)).location).toBe('https://dest.example/?utm_source=u');
  });

  it.each([
    ['CR LF (header injection)', 'https://dest.example/p\r\nSet-Cookie: a=1'],
    ['NUL', 'https://dest.example/\u0000'],
    ['TAB', 'https://dest.example/a\tb'],
    ['DEL', 'https://dest.example/\u007f'],
    ['a code scheme', 'javascript:alert(1)'],
    ['a relative URL', '/relative'],
  ])('a stored destination with %s is never sent: 404 EN001, no Location, no hit', (_name, url) => {
    const d = answer(decideRedirect(input({ link: link({ url, utmSource: null }) }), facts(), NOW));
    expect(d).toMatchObject({ status: '404 Not Found', location: null, outcome: 'not_found', hit: null });
    expect(JSON.parse(d.body).errors[0].code).toBe('EN001');
  });

  it('percent-encoded control characters are URL data and pass as they are', () => {
    const encoded = link({ url: 'https://dest.example/a%0Ab?x=%00', utmSource: null });
    expect(answer(decideRedirect(input({ link: encoded }), facts(), NOW)).location).toBe('https://dest.example/a%0Ab?x=%00');
  });
});

describe('QR route', () => {
  const qr = { kind: 'qr', shortCode: 'abcdefg', format: 'svg' } as const;
  it('encodes the smart link on the link’s own active domain, else the default domain', () => {
    expect(decideRedirect(input({ route: qr }), facts(), NOW)).toEqual({ kind: 'qr', format: 'svg', content: 'https://sho.rt/abcdefg?qr=1', outcome: 'qr' });
    expect(decideRedirect(input({ route: qr, linkDomain: domainOf('go.acme.test', ORG) }), facts(), NOW)).toMatchObject({
      content: 'https://go.acme.test/abcdefg?qr=1',
    });
    expect(decideRedirect(input({ route: qr, linkDomain: domainOf('go.acme.test', 'new-owner') }), facts(), NOW)).toMatchObject({
      content: 'https://sho.rt/abcdefg?qr=1',
    });
    expect(answer(decideRedirect(input({ route: qr, link: link({ isActive: false }) }), facts(), NOW)).outcome).toBe('archived');
  });

  it('keeps the short link base as given, scheme and port included (embedded http://localhost:<port>)', () => {
    const local = input({ route: qr, shortLinkBase: 'http://localhost:8080' });
    expect(decideRedirect(local, facts(), NOW)).toMatchObject({ content: 'http://localhost:8080/abcdefg?qr=1' });
    expect(decideRedirect({ ...local, linkDomain: domainOf('go.acme.test', ORG) }, facts(), NOW)).toMatchObject({
      content: 'https://go.acme.test/abcdefg?qr=1',
    });
  });
});

describe('crawlers', () => {
  it('preview page with OG tags and a METADATA_PREVIEW hit, even when the quota is exhausted; HEAD records nothing', () => {
    const l = link({
      enableCustomMetadata: true,
      customMetadataTitle: 'T',
      preview: { title: 'fetched', description: 'D', imageUrl: null, frameRefused: false },
    });
    const quota = { allowed: false as const, currentClicks: 1, clicksLimit: 1, periodEnd: 0, plan: 'FREE' as const };
    const d = answer(decideRedirect(input({ link: l, quota }), facts({ userAgent: 'TelegramBot (like TwitterBot)' }), NOW));
    expect(d).toMatchObject({ status: '200 OK', outcome: 'preview', hit: { eventType: 'METADATA_PREVIEW' } });
    expect(d.body).toContain('<meta property="og:title" content="T">');
    expect(d.body).toContain('<meta property="og:description" content="D">');
    expect(answer(decideRedirect(input({ link: l }), facts({ userAgent: 'WhatsApp/2.23', method: 'HEAD' }), NOW)).hit).toBeNull();
  });

  it('quotaApplies is false for crawlers, archived links, foreign hosts and suspended organisations', () => {
    expect(quotaApplies(input(), facts())).toBe(true);
    expect(quotaApplies(input(), facts({ userAgent: 'Twitterbot/1.0' }))).toBe(false);
    expect(quotaApplies(input({ link: link({ isActive: false }) }), facts())).toBe(false);
    expect(quotaApplies(input({ hostDomain: domainOf('x', 'other') }), facts())).toBe(false);
    expect(quotaApplies(input({ route: { kind: 'qr', shortCode: 'abcdefg', format: 'png' } }), facts())).toBe(false);
    expect(quotaApplies(input({ org: { ...organizationOf(ORG, 'FREE'), suspended: true } }), facts())).toBe(false);
  });
});

describe('deep links', () => {
  const all = [entry('IOS'), entry('ANDROID', { fallbackEnabled: true }), entry('WEB')];
  const apps = appsOf(app('IOS'), app('ANDROID'), app('WEB'));

  it('iOS: page opening the deep link, falling back to the store URL (fallbackEnabled=false)', () => {
    const d = answer(decideRedirect(input({ link: link({ deepLinks: all }), apps }), facts({ userAgent: IPHONE }), NOW));
    expect(d.outcome).toBe('app_page');
    expect(d.body).toContain('data-open="ex://open/1"');
    expect(d.body).toContain('data-fallback="https://store.example/IOS"');
    expect(d.hit?.eventType).toBe('CLICK');
  });

  it('Android: intent URL with package and S.browser_fallback_url = fallbackUrl (fallbackEnabled=true)', () => {
    const d = answer(decideRedirect(input({ link: link({ deepLinks: all }), apps }), facts({ userAgent: ANDROID }), NOW));
    expect(d.body).toContain(
      'data-open="intent://open/1#Intent;scheme&#61;ex;package&#61;com.ex.app;S.browser_fallback_url&#61;https%3A%2F%2Ffallback.example%2F;end"',
    );
    expect(d.body).toContain('data-fallback="https://fallback.example/"');
  });

  it('other devices use the WEB entry; only one platform configured: the others get the plain url', () => {
    expect(answer(decideRedirect(input({ link: link({ deepLinks: all }), apps }), facts(), NOW)).body).toContain('data-fallback="https://store.example/WEB"');
    const onlyIos = link({ deepLinks: [entry('IOS')] });
    expect(answer(decideRedirect(input({ link: onlyIos, apps }), facts({ userAgent: ANDROID }), NOW)).location).toBe(
      'https://dest.example/p?x=1&utm_source=src',
    );
    expect(answer(decideRedirect(input({ link: onlyIos, apps }), facts(), NOW)).outcome).toBe('redirect');
  });

  it('inactive, unknown or foreign apps are skipped', () => {
    const l = link({ deepLinks: [entry('IOS')] });
    for (const a of [appsOf(app('IOS', { active: false })), new Map<string, MobileApp | null>([['app-IOS', null]]), appsOf(app('IOS', { orgId: 'x' }))]) {
      expect(answer(decideRedirect(input({ link: l, apps: a }), facts({ userAgent: IPHONE }), NOW)).outcome).toBe('redirect');
    }
  });

  it('an entry without (or with an unsafe) deeplinkUrl goes straight to fallbackUrl or the store URL', () => {
    const ua = facts({ userAgent: IPHONE });
    const noDeep = link({ deepLinks: [entry('IOS', { deeplinkUrl: null, fallbackEnabled: true })] });
    expect(answer(decideRedirect(input({ link: noDeep, apps }), ua, NOW))).toMatchObject({
      status: '302 Found',
      location: 'https://fallback.example/',
      outcome: 'app_fallback',
    });
    const toStore = link({ deepLinks: [entry('IOS', { deeplinkUrl: 'javascript:alert(1)' })] });
    expect(answer(decideRedirect(input({ link: toStore, apps }), ua, NOW)).location).toBe('https://store.example/IOS');
    const badFallback = link({ deepLinks: [entry('IOS', { deeplinkUrl: null, fallbackEnabled: true, fallbackUrl: 'data:text/html,x' })] });
    expect(answer(decideRedirect(input({ link: badFallback, apps }), ua, NOW)).location).toBe('https://store.example/IOS');
  });

  it.each([
    'file:///C:/Windows/System32/calc.exe',
    'search-ms:query=x&crumb=location:\\\\evil\\share',
    'ms-msdt:/id PCWDiagnostic',
    'MS-Settings:privacy',
    'smb://evil/share',
    'intent://x#Intent;scheme=file;end',
  ])('a stored deep link to a local-action scheme (%s) is never opened: straight to the store URL', (deeplinkUrl) => {
    const stored = link({ deepLinks: [entry('IOS', { deeplinkUrl })] });
    expect(answer(decideRedirect(input({ link: stored, apps }), facts({ userAgent: IPHONE }), NOW))).toMatchObject({
      location: 'https://store.example/IOS',
      outcome: 'app_fallback',
    });
  });

  it('webBrowser behaviour → the url (cloaked when the link is cloaked)', () => {
    const l = link({ deepLinks: [entry('IOS', { linkBehaviour: 'webBrowser' })] });
    expect(answer(decideRedirect(input({ link: l, apps }), facts({ userAgent: IPHONE }), NOW)).outcome).toBe('redirect');
    const cloaked = link({ cloakEnabled: true, deepLinks: [entry('IOS', { linkBehaviour: 'webBrowser' })] });
    expect(answer(decideRedirect(input({ link: cloaked, apps }), facts({ userAgent: IPHONE }), NOW)).outcome).toBe('cloak');
  });
});

describe('cloaking', () => {
  it('frame page of the destination with UTM and preview title; plain redirect when framing is refused or the URL is unsafe', () => {
    const l = link({ cloakEnabled: true, preview: { title: 'Hello & bye', description: null, imageUrl: null, frameRefused: false } });
    const d = answer(decideRedirect(input({ link: l }), facts(), NOW));
    expect(d).toMatchObject({ status: '200 OK', outcome: 'cloak', hit: { eventType: 'CLICK' } });
    expect(d.body).toContain('<iframe src="https://dest.example/p?x&#61;1&amp;utm_source&#61;src"');
    expect(d.body).toContain('<title>Hello &amp; bye</title>');
    expect(d.contentSecurityPolicy).toContain('frame-src http: https:');
    const refused = link({ cloakEnabled: true, preview: { title: null, description: null, imageUrl: null, frameRefused: true } });
    expect(answer(decideRedirect(input({ link: refused }), facts(), NOW)).outcome).toBe('redirect');
    const unsafe = link({ cloakEnabled: true, url: 'javascript:alert(1)', utmSource: null });
    expect(answer(decideRedirect(input({ link: unsafe }), facts(), NOW))).toMatchObject({ outcome: 'not_found', location: null });
  });
});
