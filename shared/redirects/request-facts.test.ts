// Invariant: content negotiation, click-source rules and small request parsers are pinned here.
import { botCategoryOf } from './crawler-detection.ts';
import { describe, expect, it } from 'vitest';
import { negotiate } from './content-negotiation.ts';
import { normalizeHost } from '../domains/host-name.ts';
import { clickSourceOf, queryHasQr, type RequestFacts } from './request-facts.ts';
import { androidIntentUrl, playStorePackage, safeDeepLinkUrl, safeWebUrl } from '../links/safe-url.ts';

const f = (over: Partial<RequestFacts>): RequestFacts => ({
  method: 'GET',
  host: 'h',
  qr: false,
  accept: '',
  userAgent: '',
  referrer: null,
  secFetchDest: '',
  secFetchMode: '',
  acceptLanguage: '',
  doNotTrack: false,
  query: '',
  ip: null,
  bot: botCategoryOf(over.userAgent ?? ''),
  ...over,
});

describe('negotiate', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true, false],
    ['application/json', false, true],
    ['application/problem+json', false, true],
    ['application/json, text/html;q=0.5', false, true],
    ['text/html;q=0.5, application/json;q=0.9', false, true],
    ['text/html, application/json', true, false],
    ['text/html;q=0', false, false],
    ['*/*', false, false],
    ['', false, false],
  ])('%s → html %s json %s', (accept, html, json) => {
    expect(negotiate(accept)).toEqual({ prefersHtml: html, asksJson: json });
  });
});

describe('clickSourceOf', () => {
  it('QR_CODE wins, then EMBED, then API, then DIRECT, else UNKNOWN', () => {
    expect(clickSourceOf(f({ qr: true, secFetchDest: 'iframe', accept: 'application/json' }))).toBe('QR_CODE');
    for (const dest of ['iframe', 'embed', 'object']) expect(clickSourceOf(f({ secFetchDest: dest, accept: 'application/json' }))).toBe('EMBED');
    expect(clickSourceOf(f({ accept: 'application/json' }))).toBe('API');
    expect(clickSourceOf(f({ secFetchMode: 'navigate', secFetchDest: 'document' }))).toBe('DIRECT');
    expect(clickSourceOf(f({ accept: 'text/html' }))).toBe('DIRECT'); // browser without Sec-Fetch headers
    expect(clickSourceOf(f({ secFetchMode: 'cors', secFetchDest: 'empty', accept: 'text/html' }))).toBe('UNKNOWN');
    expect(clickSourceOf(f({ accept: '*/*' }))).toBe('UNKNOWN');
  });
});

describe('parsers', () => {
  it('queryHasQr', () => {
    expect(queryHasQr('qr=1')).toBe(true);
    expect(queryHasQr('a=b&qr=1')).toBe(true);
    expect(queryHasQr('qr=10')).toBe(false);
    expect(queryHasQr('xqr=1')).toBe(false);
    expect(queryHasQr('')).toBe(false);
  });
  it('normalizeHost', () => {
    expect(normalizeHost(' Links.Example.COM. ')).toBe('links.example.com');
    expect(normalizeHost('localhost:8080')).toBe('localhost');
  });
  it('safe URLs', () => {
    expect(safeWebUrl('https://a.example/x y')).toBe('https://a.example/x%20y');
    expect(safeWebUrl('javascript:alert(1)')).toBeNull();
    expect(safeWebUrl('https://a.example/\r\nSet-Cookie: x')).toBeNull();
    expect(safeWebUrl('/relative')).toBeNull();
    expect(safeDeepLinkUrl('myapp://open?id=1')).toBe('myapp://open?id=1');
    expect(safeDeepLinkUrl(' JavaScript:alert(1)')).toBeNull();
    expect(safeDeepLinkUrl('data:text/html,hi')).toBeNull();
    expect(playStorePackage('https://play.google.com/store/apps/details?id=com.a.b&hl=de')).toBe('com.a.b');
    expect(playStorePackage('https://apps.apple.com/app/id1')).toBeNull();
    expect(androidIntentUrl('app://x/y?z=1#frag', 'https://f.example/?a=1', 'https://x')).toBe(
      'intent://x/y?z=1#Intent;scheme=app;S.browser_fallback_url=https%3A%2F%2Ff.example%2F%3Fa%3D1;end',
    );
    expect(androidIntentUrl('intent://given#Intent;end', 'https://f', '')).toBe('intent://given#Intent;end');
  });
});
