// Invariant: enrichment turns RawHits into EventRecords one batch at a time, off the redirect
// path, and never fails a hit: an unparseable referrer, User-Agent or IP yields null fields, not
// an error. The raw facts of the hit (ids, time, code, source, referrer, UTM) pass through
// unchanged; the client IP itself is never stored.
import { buildEventRecord, type EventRecord } from '../events/analytics-event.ts';
import { GeoLocator, NO_GEO, type GeoLocatorOptions } from './geo-locator.ts';
import type { RawHit } from '../events/raw-hit.ts';
import { UserAgentCache } from './user-agent-details.ts';

/** Host name of the referrer URL, lower-cased (kept as sent: `www.` is not stripped); null when none. */
export function referrerDomain(referrer: string | null): string | null {
  if (referrer === null || referrer.trim() === '') return null;
  try {
    const host = new URL(referrer.trim()).hostname.toLowerCase();
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

export interface HitEnricherOptions {
  geo?: GeoLocatorOptions;
  userAgentCacheEntries?: number;
}

export class HitEnricher {
  readonly geo: GeoLocator;
  readonly userAgents: UserAgentCache;

  constructor(options: HitEnricherOptions = {}) {
    this.geo = new GeoLocator(options.geo);
    this.userAgents = new UserAgentCache(options.userAgentCacheEntries);
  }

  async enrich(hits: readonly RawHit[]): Promise<EventRecord[]> {
    const geos = await this.geo.lookupAll(hits.map((h) => h.ip));
    return hits.map((hit, i) => {
      const ua = this.userAgents.get(hit.userAgent);
      const geo = geos[i] ?? NO_GEO;
      return buildEventRecord(hit, {
        referrerDomain: referrerDomain(hit.referrer),
        country: geo.country,
        countryCode: geo.countryCode,
        city: geo.city,
        region: geo.region,
        browserName: ua.browserName,
        browserVersion: ua.browserVersion,
        osName: ua.osName,
        osVersion: ua.osVersion,
        deviceType: ua.deviceType,
        deviceBrand: ua.deviceBrand,
        deviceModel: ua.deviceModel,
      });
    });
  }
}
