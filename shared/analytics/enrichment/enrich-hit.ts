// Invariant: enrichment turns RawHits into events one batch at a time, off the redirect path, and
// never fails a hit: an unparseable referrer, User-Agent or IP yields null fields, not an error.
// The raw facts of the hit (ids, time, code, source, referrer, UTM) pass through unchanged; the
// client IP itself is never stored. Work is done once per DISTINCT value in a batch: one
// User-Agent lookup (parsed at most once per process, memoised by UserAgentCache), one geo lookup
// per address (GeoLocator's LRU), one referrer parse; hits come in as columns and the enrichment
// goes out as columns, with no object per event. The enriched columns are exactly the schema's ENRICHED_FIELDS (checked at
// import).
import type { EnrichedFields, EventRecord } from '../events/analytics-event.ts';
import { recordsFromColumns, type EventColumns } from '../events/event-columns.ts';
import { ENRICHED_FIELDS } from '../events/event-schema.ts';
import { eventColumnsFor, hitColumnsOf, type HitColumns } from '../events/hit-columns.ts';
import type { RawHit } from '../events/raw-hit.ts';
import { GeoLocator, NO_GEO, type Geo, type GeoLocatorOptions } from './geo-locator.ts';
import { UserAgentCache, type UserAgentDetails } from './user-agent-details.ts';

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

const GEO_KEYS = ['country', 'countryCode', 'city', 'region'] as const satisfies readonly (keyof Geo & keyof EnrichedFields)[];
const UA_KEYS = ['browserName', 'browserVersion', 'osName', 'osVersion', 'deviceType', 'deviceBrand', 'deviceModel'] as const satisfies readonly (keyof UserAgentDetails &
  keyof EnrichedFields)[];
const COVERED = new Set<string>(['referrerDomain', ...GEO_KEYS, ...UA_KEYS]);
if (COVERED.size !== ENRICHED_FIELDS.length || ENRICHED_FIELDS.some((k) => !COVERED.has(k))) {
  throw new Error(`enrichment covers ${[...COVERED].join(', ')} but the schema enriches ${ENRICHED_FIELDS.join(', ')}`);
}
/** Fills the enrichment of rows [start, end) with nulls (what is stored when enrichment fails). */
export function leaveUnenriched(out: EventColumns, start: number, end: number): void {
  for (const k of ENRICHED_FIELDS) {
    const column = out.values[k];
    column.length = start;
    for (let i = start; i < end; i++) column.push(null);
  }
}

export class HitEnricher {
  readonly geo: GeoLocator;
  readonly userAgents: UserAgentCache;

  constructor(options: HitEnricherOptions = {}) {
    this.geo = new GeoLocator(options.geo);
    this.userAgents = new UserAgentCache(options.userAgentCacheEntries);
  }

  /**
   * Appends the enrichment of hits [start, end) to `out`'s enriched columns (which hold exactly
   * `start` rows before the call).
   */
  async enrichRange(hits: HitColumns, start: number, end: number, out: EventColumns): Promise<void> {
    const ipColumn = hits.ip.slice(start, end);
    const ips = [...new Set(ipColumn.filter((ip): ip is string => ip !== null))];
    const geos = await this.geo.lookupAll(ips);
    const geoOf = new Map<string | null, Geo>(ips.map((ip, i) => [ip, geos[i] ?? NO_GEO]));
    const uaOf = new Map<string | null, UserAgentDetails>();
    const refOf = new Map<string | null, string | null>();
    const v = out.values;
    const referrers = hits.facts.referrer;
    for (let i = start; i < end; i++) {
      const userAgent = hits.userAgent[i] ?? null;
      let ua = uaOf.get(userAgent);
      if (ua === undefined) uaOf.set(userAgent, (ua = this.userAgents.get(userAgent)));
      const referrer = referrers[i] ?? null;
      let ref = refOf.get(referrer);
      if (ref === undefined) refOf.set(referrer, (ref = referrerDomain(referrer)));
      const geo = geoOf.get(ipColumn[i - start] ?? null) ?? NO_GEO;
      v.referrerDomain.push(ref);
      for (const k of GEO_KEYS) v[k].push(geo[k]);
      for (const k of UA_KEYS) v[k].push(ua[k]);
    }
  }

  /** The hits as enriched records (tests and benches; the write path keeps columns). */
  async enrich(hits: readonly RawHit[]): Promise<EventRecord[]> {
    const columns = hitColumnsOf(hits);
    const out = eventColumnsFor(columns);
    await this.enrichRange(columns, 0, columns.rows, out);
    return recordsFromColumns(out);
  }
}
