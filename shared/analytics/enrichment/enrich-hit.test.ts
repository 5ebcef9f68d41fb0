// Invariant: enrichment reads the real DB-IP databases and the real ua-parser-js; these checks pin
// the fields the spec names, the device-type rule and the null cases.
import { describe, expect, it } from 'vitest';
import { CHROME_WINDOWS_UA, IPHONE_UA, newOrgId, rawHit } from '../events/analytics-fixtures.ts';
import { DEFAULT_TRACKING, TRACKING_BITS, trackingMask, visitMask } from '../model/tracking.ts';
import { ENRICHED_FIELDS } from '../events/event-schema.ts';
import { HitEnricher, referrerDomain } from './enrich-hit.ts';
import { countryName, GeoLocator } from './geo-locator.ts';
import { parseUserAgent, UserAgentCache } from './user-agent-details.ts';

describe('referrerDomain', () => {
  it('is the host of an absolute URL, lower-cased, else null', () => {
    expect(referrerDomain('https://WWW.Example.COM:8443/a?b=c')).toBe('www.example.com');
    expect(referrerDomain('android-app://com.google.android.gm/')).toBe('com.google.android.gm');
    expect(referrerDomain('not a url')).toBeNull();
    expect(referrerDomain('')).toBeNull();
    expect(referrerDomain(null)).toBeNull();
  });
});

describe('user agents', () => {
  it('maps parser device types; a desktop OS without a device type is DESKTOP, anything else null', () => {
    expect(parseUserAgent(CHROME_WINDOWS_UA)).toEqual({
      browserName: 'Chrome',
      browserVersion: '124.0.0.0',
      osName: 'Windows',
      osVersion: '10',
      deviceType: 'DESKTOP',
      deviceBrand: null,
      deviceModel: null,
      botCategory: null,
    });
    expect(parseUserAgent('Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)').botCategory).toBe('LINK_PREVIEW');
    expect(parseUserAgent('curl/8.5.0').botCategory).toBe('HTTP_LIBRARY');
    expect(new UserAgentCache().get(null).botCategory).toBe('OTHER_BOT');
    expect(new UserAgentCache().get('  ').botCategory).toBe('OTHER_BOT');
    expect(parseUserAgent(IPHONE_UA)).toMatchObject({
      deviceType: 'MOBILE',
      deviceBrand: 'Apple',
      deviceModel: 'iPhone',
      osName: 'iOS',
      browserName: 'Mobile Safari',
    });
    expect(
      parseUserAgent('Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1')
        .deviceType,
    ).toBe('TABLET');
    expect(
      parseUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15').deviceType,
    ).toBe('DESKTOP');
    expect(parseUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0').deviceType).toBe('DESKTOP');
    expect(parseUserAgent('Mozilla/5.0 (PlayStation 5 3.11) AppleWebKit/605.1.15 (KHTML, like Gecko)').deviceType).toBeNull();
    expect(parseUserAgent('curl/8.5.0').deviceType).toBeNull();
  });

  it('caches by UA string', () => {
    const cache = new UserAgentCache(2);
    const a = cache.get(CHROME_WINDOWS_UA);
    expect(cache.get(CHROME_WINDOWS_UA)).toBe(a);
    expect(cache.get(null).browserName).toBeNull();
    cache.get(IPHONE_UA);
    cache.get('curl/8');
    expect(cache.size).toBe(2);
  });
});

describe('geo', () => {
  const geo = new GeoLocator();

  it('IPv4, IPv6 and IPv4-mapped IPv6 addresses', async () => {
    expect(await geo.lookup('8.8.8.8')).toMatchObject({ country: 'United States', countryCode: 'US', city: 'Mountain View', region: 'California' });
    expect(await geo.lookup('::ffff:8.8.8.8')).toMatchObject({ countryCode: 'US' });
    expect((await geo.lookup('2001:4860:4860::8888')).countryCode).toEqual(expect.stringMatching(/^[A-Z]{2}$/));
  });

  it('private, malformed and missing addresses are all-null', async () => {
    const none = { country: null, countryCode: null, city: null, region: null };
    for (const ip of ['10.0.0.1', '127.0.0.1', '::1', 'garbage', '999.1.1.1', null]) expect(await geo.lookup(ip)).toEqual(none);
  });

  it('opens its databases once', async () => {
    const fresh = new GeoLocator();
    const [a, b] = [fresh.open(), fresh.open()];
    expect(a).toBe(b);
    await a;
  });

  it('country names in English', () => {
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('ZZ')).toBeNull();
    expect(countryName('x')).toBeNull();
  });
});

describe('HitEnricher', () => {
  it('enriches a batch, passing the raw facts through', async () => {
    const orgId = newOrgId();
    const hit = rawHit({ orgId, ip: '8.8.8.8', userAgent: IPHONE_UA, referrer: 'https://t.co/abc', utmSource: 'x', clickedAtMicros: 1_767_225_600_123_456 });
    const [rec] = await new HitEnricher().enrich([hit]);
    expect(rec).toMatchObject({
      orgId,
      createdAtMicros: '1767225600123456',
      referrer: 'https://t.co/abc',
      referrerDomain: 't.co',
      countryCode: 'US',
      deviceType: 'MOBILE',
      utmSource: 'x',
    });
    expect(rec).not.toHaveProperty('ip');
  });

  it('works once per distinct value: each User-Agent, address and referrer of a batch is looked up once', async () => {
    const enricher = new HitEnricher();
    const orgId = newOrgId();
    const hits = Array.from({ length: 3000 }, (_, i) =>
      rawHit({ orgId, ip: i % 3 === 0 ? '8.8.8.8' : '1.1.1.1', userAgent: i % 2 ? IPHONE_UA : CHROME_WINDOWS_UA, referrer: i % 5 ? null : 'https://t.co/x' }),
    );
    const looked: string[] = [];
    const lookupWith = enricher.geo.lookupWith.bind(enricher.geo);
    enricher.geo.lookupWith = (readers, ip) => {
      looked.push(ip);
      return lookupWith(readers, ip);
    };
    const records = await enricher.enrich(hits);
    expect(looked.sort()).toEqual(['1.1.1.1', '8.8.8.8']);
    expect(records.filter((r) => r.countryCode === 'US')).toHaveLength(3000 / 3);
    expect(records.filter((r) => r.deviceType === 'MOBILE')).toHaveLength(1500);
    expect(records.filter((r) => r.referrerDomain === 't.co')).toHaveLength(600);
    expect(new Set(records.map((r) => r.eventId)).size).toBe(3000);
  });
});

describe('tracking masks', () => {
  it('null exactly the fields each switch names, per row, whatever else shares the batch', async () => {
    const orgId = newOrgId();
    const B = TRACKING_BITS;
    const masks = {
      none: 0,
      referrer: trackingMask({ ...DEFAULT_TRACKING, referrer: false }),
      userAgent: trackingMask({ ...DEFAULT_TRACKING, userAgent: false }),
      country: trackingMask({ ...DEFAULT_TRACKING, geo: 'country' }),
      noGeo: trackingMask({ ...DEFAULT_TRACKING, geo: 'none' }),
      dntIgnored: visitMask(trackingMask(DEFAULT_TRACKING), true),
      dntHonouredNotAsked: visitMask(trackingMask({ ...DEFAULT_TRACKING, dnt: true }), false),
      dntHonoured: visitMask(trackingMask({ ...DEFAULT_TRACKING, dnt: true }), true),
    };
    expect(masks.dntIgnored).toBe(0);
    expect(masks.dntHonoured & B.anonymous).toBe(B.anonymous);
    const names = Object.keys(masks) as (keyof typeof masks)[];
    const hits = names.flatMap((name) =>
      [IPHONE_UA, 'curl/8.5.0'].map((userAgent) =>
        rawHit({
          orgId,
          shortCode: name,
          ip: '8.8.8.8',
          userAgent,
          referrer: 'https://t.co/abc',
          tracking: masks[name],
          clickedAtMicros: 1_767_225_600_000_000,
        }),
      ),
    );
    const records = await new HitEnricher().enrich(hits);
    const full = records.find((r) => r.shortCode === 'none' && r.botCategory === null);
    expect(full).toMatchObject({
      referrer: 'https://t.co/abc',
      referrerDomain: 't.co',
      countryCode: 'US',
      country: 'United States',
      deviceType: 'MOBILE',
      osName: 'iOS',
    });
    const kept = (name: string, bot: boolean) => records.find((r) => r.shortCode === name && (r.botCategory !== null) === bot);
    for (const name of ['none', 'dntIgnored', 'dntHonouredNotAsked'])
      expect(kept(name, false)).toMatchObject({ ...full, eventId: expect.any(String), shortCode: name });
    expect(kept('referrer', false)).toMatchObject({ referrer: null, referrerDomain: null, countryCode: 'US', deviceType: 'MOBILE' });
    expect(kept('userAgent', false)).toMatchObject({
      referrerDomain: 't.co',
      browserName: null,
      browserVersion: null,
      osName: null,
      osVersion: null,
      deviceType: null,
      deviceBrand: null,
      deviceModel: null,
      countryCode: 'US',
    });
    expect(kept('userAgent', true)?.botCategory).toBe('HTTP_LIBRARY');
    expect(kept('country', false)).toMatchObject({ country: 'United States', countryCode: 'US', city: null, region: null, deviceType: 'MOBILE' });
    expect(kept('noGeo', false)).toMatchObject({ country: null, countryCode: null, city: null, region: null, referrerDomain: 't.co' });
    const anonymous = records.filter((r) => r.shortCode === 'dntHonoured');
    expect(anonymous).toHaveLength(2);
    for (const r of anonymous) {
      expect(r).toMatchObject({ eventType: 'CLICK', clickSource: 'DIRECT', shortCode: 'dntHonoured' });
      for (const k of [...ENRICHED_FIELDS, 'referrer'] as const) expect(r[k], k).toBeNull();
    }
    // The other rows of the batch kept their bot category.
    expect(records.filter((r) => r.shortCode !== 'dntHonoured' && r.botCategory === 'HTTP_LIBRARY')).toHaveLength(names.length - 1);
  });
});
