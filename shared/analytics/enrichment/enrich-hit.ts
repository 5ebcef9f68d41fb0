// Invariant: enrichment turns RawHits into events one batch at a time, off the redirect path, and
// never fails a hit: an unparseable referrer, User-Agent or IP yields null fields, not an error.
// The raw facts of the hit (ids, time, code, source, referrer, UTM) pass through unchanged; the
// client IP itself is never stored. Work is done once per DISTINCT value in a batch: one
// User-Agent lookup (parsed at most once per process, memoised by UserAgentCache), one geo lookup
// per address (GeoLocator's LRU), one referrer parse; the events come out as columns, with no
// object per event. The enriched columns are exactly the schema's ENRICHED_FIELDS (checked at
// import).
import type { EnrichedFields, EventRecord } from '../events/analytics-event.ts';
import { emptyEventColumns, recordsFromColumns, type EventColumns } from '../events/event-columns.ts';
import { ENRICHED_FIELDS, HIT_FIELDS, recordKey } from '../events/event-schema.ts';
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
const HIT_KEYS = HIT_FIELDS.map((k) => recordKey(k));

/** The hits' raw facts and an empty enrichment, as columns (what is stored when enrichment fails). */
export function unenrichedColumns(hits: readonly RawHit[]): EventColumns {
  const out = emptyEventColumns();
  appendFacts(out, hits);
  for (const k of ENRICHED_FIELDS) out.values[k].length = hits.length;
  for (const k of ENRICHED_FIELDS) out.values[k].fill(null);
  return out;
}

function appendFacts(out: EventColumns, hits: readonly RawHit[]): void {
  for (const k of HIT_KEYS) {
    const column = out.values[k];
    for (const h of hits) column.push(h[k]);
  }
  out.rows += hits.length;
}

export class HitEnricher {
  readonly geo: GeoLocator;
  readonly userAgents: UserAgentCache;

  constructor(options: HitEnricherOptions = {}) {
    this.geo = new GeoLocator(options.geo);
    this.userAgents = new UserAgentCache(options.userAgentCacheEntries);
  }

  /** The hits as events appended to `out` (a new batch by default): their facts, then the enrichment. */
  async enrichColumns(hits: readonly RawHit[], out: EventColumns = emptyEventColumns()): Promise<EventColumns> {
    const ips = [...new Set(hits.map((h) => h.ip).filter((ip): ip is string => ip !== null))];
    const geos = await this.geo.lookupAll(ips);
    const geoOf = new Map<string | null, Geo>(ips.map((ip, i) => [ip, geos[i] ?? NO_GEO]));
    const uaOf = new Map<string | null, UserAgentDetails>();
    const refOf = new Map<string | null, string | null>();
    appendFacts(out, hits);
    const v = out.values;
    for (const h of hits) {
      let ua = uaOf.get(h.userAgent);
      if (ua === undefined) uaOf.set(h.userAgent, (ua = this.userAgents.get(h.userAgent)));
      let ref = refOf.get(h.referrer);
      if (ref === undefined) refOf.set(h.referrer, (ref = referrerDomain(h.referrer)));
      const geo = geoOf.get(h.ip) ?? NO_GEO;
      v.referrerDomain.push(ref);
      for (const k of GEO_KEYS) v[k].push(geo[k]);
      for (const k of UA_KEYS) v[k].push(ua[k]);
    }
    return out;
  }

  /** The batch as records (tests and benches; the write path keeps columns). */
  async enrich(hits: readonly RawHit[]): Promise<EventRecord[]> {
    return recordsFromColumns(await this.enrichColumns(hits));
  }
}
