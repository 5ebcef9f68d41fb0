// Invariant: the link rules' part of the pure decision, pinned with plain values: each condition
// type and their combinations, first match, precedence against deep links and cloaking, expiry by
// time and by clicks (with and without expiredUrl), the password and the order of checks; nothing
// that does not go through records a hit.
import { botCategoryOf } from './crawler-detection.ts';
import { describe, expect, it } from 'vitest';
import { deepLinkOf, linkOf, mobileAppOf, organizationOf } from '../../test/support/model-fixtures.ts';
import type { Link, StoredLink } from '../links/link.ts';
import type { RuleSpec } from '../links/link-rules.ts';
import { decideRedirect, type Decision, type DecisionInput, type HttpAnswer } from './decide-redirect.ts';
import type { RequestFacts } from './request-facts.ts';
import { preferredLanguage } from './visitor.ts';

const NOW = Date.UTC(2026, 11, 10, 12, 0, 0);
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID_PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';
const ANDROID_TABLET = 'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const CRAWLER = 'facebookexternalhit/1.1';

const rule = (url: string, ...conditions: [RuleSpec['conditions'][number]['type'], string][]): RuleSpec => ({
  conditions: conditions.map(([type, value]) => ({ type, value })),
  url,
});

function link(over: Partial<StoredLink> = {}): Link {
  return linkOf({ orgId: 'org-1', url: 'https://dest.example/', ...over });
}

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    method: 'GET',
    host: 'sho.rt',
    qr: false,
    accept: '*/*',
    userAgent: DESKTOP,
    referrer: null,
    secFetchDest: '',
    secFetchMode: '',
    acceptLanguage: '',
    doNotTrack: false,
    query: '',
    ip: '192.0.2.1',
    bot: botCategoryOf(over.userAgent ?? DESKTOP),
    ...over,
  };
}

function input(l: Link, over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    route: { kind: 'visit', shortCode: l.shortCode },
    link: l,
    hostDomain: null,
    linkDomain: null,
    org: organizationOf('org-1', 'PRO'),
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

const decide = (l: Link, f: Partial<RequestFacts> = {}, over: Partial<DecisionInput> = {}, now = NOW) => answer(decideRedirect(input(l, over), facts(f), now));

describe('rule conditions', () => {
  it('device: IOS (iPhone and iPad), ANDROID, MOBILE (phones), TABLET, DESKTOP (the rest)', () => {
    const cases: [string, string[]][] = [
      [IPHONE, ['IOS', 'MOBILE']],
      [IPAD, ['IOS', 'TABLET']],
      [ANDROID_PHONE, ['ANDROID', 'MOBILE']],
      [ANDROID_TABLET, ['ANDROID', 'TABLET']],
      [DESKTOP, ['DESKTOP']],
      ['', ['DESKTOP']],
    ];
    for (const [ua, holds] of cases) {
      for (const device of ['IOS', 'ANDROID', 'MOBILE', 'TABLET', 'DESKTOP']) {
        const d = decide(link({ rules: [rule('https://r.example/', ['device', device])] }), { userAgent: ua });
        expect([ua, device, d.outcome]).toEqual([ua, device, holds.includes(device) ? 'rule' : 'redirect']);
      }
    }
  });

  it('countryCode: the given country only', () => {
    const l = link({ rules: [rule('https://de.example/', ['countryCode', 'DE'])] });
    expect(l.compiledRules.needsCountry).toBe(true);
    expect(decide(l, {}, { country: 'DE' }).location).toBe('https://de.example/');
    expect(decide(l, {}, { country: 'AT' }).outcome).toBe('redirect');
    expect(decide(l, {}, { country: null }).outcome).toBe('redirect');
  });

  it('language: the primary tag of the most preferred entry; garbage is no language', () => {
    const l = link({ rules: [rule('https://de.example/', ['language', 'de'])] });
    expect(decide(l, { acceptLanguage: 'de-AT,en;q=0.8' }).outcome).toBe('rule');
    expect(decide(l, { acceptLanguage: 'en;q=0.5, de-CH;q=0.9' }).outcome).toBe('rule');
    expect(decide(l, { acceptLanguage: 'en-US,de;q=0.9' }).outcome).toBe('redirect');
    for (const garbage of ['', ';;;', 'de;q=abc', '*', 'x'.repeat(10_000), '\u0000de', 'de;q=2', ',,,de', '😀']) {
      expect(() => decide(l, { acceptLanguage: garbage })).not.toThrow();
    }
    expect(preferredLanguage(',,,de')).toBe('de');
    expect(preferredLanguage('de;q=2')).toBe(null);
    expect(preferredLanguage('de;q=0, fr;q=0.1')).toBe('fr');
    expect(preferredLanguage('*;q=1, it')).toBe('it');
  });

  it('queryParam: name (any value) or name=value, percent-decoded', () => {
    const any = link({ rules: [rule('https://r.example/', ['queryParam', 'ref'])] });
    const exact = link({ rules: [rule('https://r.example/', ['queryParam', 'ref=mail list'])] });
    expect(decide(any, { query: 'ref=' }).outcome).toBe('rule');
    expect(decide(any, { query: 'a=1&ref=x' }).outcome).toBe('rule');
    expect(decide(any, { query: 'reference=1' }).outcome).toBe('redirect');
    expect(decide(exact, { query: 'ref=mail%20list' }).outcome).toBe('rule');
    expect(decide(exact, { query: 'ref=mail+list&ref=x' }).outcome).toBe('rule');
    expect(decide(exact, { query: 'ref=mail' }).outcome).toBe('redirect');
    expect(decide(exact, { query: '%zz=%%&ref' }).outcome).toBe('redirect');
  });

  it('after is inclusive, before exclusive', () => {
    const at = '2026-12-10T12:00:00.000Z';
    const after = link({ rules: [rule('https://r.example/', ['after', at])] });
    const before = link({ rules: [rule('https://r.example/', ['before', at])] });
    expect(decide(after, {}, {}, NOW).outcome).toBe('rule');
    expect(decide(after, {}, {}, NOW - 1).outcome).toBe('redirect');
    expect(decide(before, {}, {}, NOW).outcome).toBe('redirect');
    expect(decide(before, {}, {}, NOW - 1).outcome).toBe('rule');
  });

  it('combinations: every condition of a rule must hold', () => {
    const l = link({
      rules: [
        rule('https://r.example/', ['device', 'IOS'], ['language', 'fr'], ['queryParam', 'c=1'], ['after', '2026-01-01T00:00:00Z'], ['countryCode', 'FR']),
      ],
    });
    const all = { userAgent: IPHONE, acceptLanguage: 'fr-FR', query: 'c=1' };
    expect(decide(l, all, { country: 'FR' }).outcome).toBe('rule');
    expect(decide(l, { ...all, userAgent: ANDROID_PHONE }, { country: 'FR' }).outcome).toBe('redirect');
    expect(decide(l, { ...all, acceptLanguage: 'en' }, { country: 'FR' }).outcome).toBe('redirect');
    expect(decide(l, { ...all, query: 'c=2' }, { country: 'FR' }).outcome).toBe('redirect');
    expect(decide(l, all, { country: 'BE' }).outcome).toBe('redirect');
    expect(decide(l, all, { country: 'FR' }, Date.UTC(2025, 0, 1)).outcome).toBe('redirect');
  });
});

describe('rule order and precedence', () => {
  it('the first rule that holds wins, and its index is answered; UTM tags apply to its URL', () => {
    const l = link({
      utmSource: 'news',
      rules: [
        rule('https://first.example/', ['device', 'ANDROID']),
        rule('https://second.example/?a=1', ['device', 'MOBILE']),
        rule('https://third.example/', ['device', 'IOS']),
      ],
    });
    const d = decide(l, { userAgent: IPHONE });
    expect(d).toMatchObject({ status: '302 Found', outcome: 'rule', rule: 1, location: 'https://second.example/?a=1&utm_source=news' });
    expect(d.hit).toEqual({ eventType: 'CLICK', clickSource: 'UNKNOWN' });
    expect(decide(l, { userAgent: ANDROID_PHONE })).toMatchObject({ rule: 0, location: 'https://first.example/?utm_source=news' });
    expect(decide(l, { userAgent: DESKTOP })).toMatchObject({ rule: null, outcome: 'redirect' });
  });

  it('a rule beats the deep links; the deep links apply when no rule holds', () => {
    const apps = new Map([['app-IOS', mobileAppOf('IOS', 'org-1')]]);
    const l = link({ deepLinks: [deepLinkOf('app-IOS', { deeplinkUrl: 'ex://open' })], rules: [rule('https://r.example/', ['queryParam', 'web'])] });
    expect(decide(l, { userAgent: IPHONE, query: 'web' }, { apps })).toMatchObject({ outcome: 'rule', location: 'https://r.example/' });
    expect(decide(l, { userAgent: IPHONE }, { apps }).outcome).toBe('app_page');
  });

  it('cloaking frames a rule destination', () => {
    const l = link({ cloakEnabled: true, rules: [rule('https://r.example/', ['device', 'DESKTOP'])] });
    const d = decide(l);
    expect(d).toMatchObject({ status: '200 OK', outcome: 'cloak', rule: 0 });
    expect(d.body).toContain('<iframe src="https://r.example/"');
  });

  it('a crawler gets the preview, not a rule', () => {
    const l = link({ rules: [rule('https://r.example/', ['device', 'DESKTOP'])] });
    expect(decide(l, { userAgent: CRAWLER }).outcome).toBe('preview');
  });
});

describe('expiry', () => {
  const expires = '2026-12-10 12:00:00+00';
  it('by time: from expiresAt on, 410 EN003 without expiredUrl, 302 to it with; no hit', () => {
    const l = link({ expiresAt: expires });
    expect(decide(l, {}, {}, NOW - 1).outcome).toBe('redirect');
    const d = decide(l, {}, {}, NOW);
    expect(d).toMatchObject({ status: '410 Gone', outcome: 'expired', hit: null });
    expect(JSON.parse(d.body)).toEqual({ errors: [{ code: 'EN003', message: 'Link has expired' }] });
    expect(decide(l, { accept: 'text/html' }).body).toContain('Link has expired');
    const withUrl = link({ expiresAt: expires, expiredUrl: 'https://over.example/' });
    expect(decide(withUrl)).toMatchObject({ status: '302 Found', location: 'https://over.example/', outcome: 'expired', hit: null, rule: null });
  });

  it('by clicks: the same answers once the counter is used up', () => {
    const l = link({ maxClicks: 5 });
    expect(decide(l).outcome).toBe('redirect');
    expect(decide(l, {}, { clicksExhausted: true })).toMatchObject({ status: '410 Gone', outcome: 'expired', hit: null });
    expect(decide(link({ maxClicks: 5, expiredUrl: 'https://over.example/' }), {}, { clicksExhausted: true })).toMatchObject({
      location: 'https://over.example/',
      hit: null,
    });
  });

  it('comes after suspension, archive and the click quota, and before password, crawler preview and rules', () => {
    const l = link({ expiresAt: expires, passwordHash: '$argon2id$x', rules: [rule('https://r.example/', ['device', 'DESKTOP'])] });
    expect(decide(l, {}, { org: { ...organizationOf('org-1', 'PRO'), suspended: true } }).outcome).toBe('suspended');
    expect(decide(link({ expiresAt: expires, isActive: false })).outcome).toBe('archived');
    const refused = { allowed: false as const, currentClicks: 1, clicksLimit: 1, periodEnd: 0, plan: 'FREE' as const };
    expect(decide(l, {}, { quota: refused }).outcome).toBe('quota_exhausted');
    expect(decide(l).outcome).toBe('expired');
    expect(decide(l, { userAgent: CRAWLER }).outcome).toBe('expired');
  });
});

describe('password', () => {
  const l = link({
    passwordHash: '$argon2id$x',
    customMetadataTitle: 'Secret title',
    enableCustomMetadata: true,
    rules: [rule('https://r.example/', ['device', 'DESKTOP'])],
  });

  it('without a valid cookie: an escaped HTML form (200) for browsers, 401 SML011 for JSON clients; no hit', () => {
    const page = decide(l, { accept: 'text/html', query: 'a="><script>' });
    expect(page).toMatchObject({ status: '200 OK', outcome: 'password_required', hit: null, location: null });
    expect(page.body).toContain('<label for="password">Password</label>');
    expect(page.body).toContain('action="/abcdefg?a&#61;&quot;&gt;&lt;script&gt;"');
    expect(page.body).not.toContain('<script>');
    expect(page.contentSecurityPolicy).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const json = decide(l, { accept: 'application/json' });
    expect(json).toMatchObject({ status: '401 Unauthorized', outcome: 'password_required', hit: null });
    expect(JSON.parse(json.body)).toEqual({ errors: [{ code: 'SML011', message: 'Password required' }] });
  });

  it('a crawler gets a preview without the destination or its metadata, and records nothing', () => {
    const d = decide(l, { userAgent: CRAWLER });
    expect(d).toMatchObject({ outcome: 'preview', hit: null });
    expect(d.body).not.toContain('dest.example');
    expect(d.body).not.toContain('Secret title');
    expect(d.body).not.toContain('r.example');
  });

  it('with a valid cookie the visit goes on to the rules', () => {
    expect(decide(l, {}, { passwordOk: true })).toMatchObject({ outcome: 'rule', location: 'https://r.example/' });
  });
});
