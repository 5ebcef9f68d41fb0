// Invariant: enrichment turns the distinct User-Agents, client addresses and referrers of a batch
// of hits into the event's enriched fields, off the redirect path, once per distinct value: one
// User-Agent lookup (parsed at most once per process, memoised by UserAgentCache), one geo lookup
// (GeoLocator's LRU), one referrer parse. It never fails a value: an unparseable referrer,
// User-Agent or IP yields nulls, not an error. The client IP itself is never stored. Each enriched
// field is computed from exactly one fact (ENRICHMENT_SOURCES, checked against the schema by its
// type). The visitor column is computed from the rows' facts under the day's salt
// (visitor-ids.ts). Both are sliced by time (turn-slices.ts), so a batch of never-seen User-Agents
// or visitors never stalls the process it shares with the redirector.
import type { EventRecord } from '../events/analytics-event.ts';
import { recordsFromBatch } from '../events/event-batch.ts';
import { ENRICHED_FIELDS, type EnrichedField } from '../events/event-schema.ts';
import type { TextColumn } from '../events/event-batch.ts';
import { HitBatch, type DistinctFacts, type EnrichedValues, type EnrichmentSource, type VisitorFacts } from '../events/hit-batch.ts';
import { VisitorIds } from './visitor-ids.ts';
import type { VisitorSaltStore } from './visitor-salts.ts';
import type { RawHit } from '../events/raw-hit.ts';
import { GeoLocator, NO_GEO, type Geo, type GeoLocatorOptions } from './geo-locator.ts';
import { UserAgentCache, type UserAgentDetails } from './user-agent-details.ts';
import { TurnSlices } from './turn-slices.ts';

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

/** The fact each enriched field is computed from. */
export const ENRICHMENT_SOURCES: Readonly<Record<EnrichedField, EnrichmentSource>> = {
  referrerDomain: 'referrer',
  country: 'address',
  countryCode: 'address',
  city: 'address',
  region: 'address',
  browserName: 'userAgent',
  browserVersion: 'userAgent',
  osName: 'userAgent',
  osVersion: 'userAgent',
  deviceType: 'userAgent',
  deviceBrand: 'userAgent',
  deviceModel: 'userAgent',
  botCategory: 'userAgent',
};

const GEO_KEYS = ['country', 'countryCode', 'city', 'region'] as const satisfies readonly (keyof Geo & EnrichedField)[];
const UA_KEYS = [
  'browserName',
  'browserVersion',
  'osName',
  'osVersion',
  'deviceType',
  'deviceBrand',
  'deviceModel',
  'botCategory',
] as const satisfies readonly (keyof UserAgentDetails & EnrichedField)[];
for (const k of GEO_KEYS) if (ENRICHMENT_SOURCES[k] !== 'address') throw new Error(`${k} is enriched from the address`);
for (const k of UA_KEYS) if (ENRICHMENT_SOURCES[k] !== 'userAgent') throw new Error(`${k} is enriched from the User-Agent`);

/** Every enriched field null, sized for `facts` (what is stored when enrichment fails). */
export function noEnrichment(facts: DistinctFacts): EnrichedValues {
  const out: Partial<Record<EnrichedField, null[]>> = {};
  for (const k of ENRICHED_FIELDS) out[k] = new Array<null>(facts[ENRICHMENT_SOURCES[k]].length).fill(null);
  return out as EnrichedValues;
}

export interface HitEnricherOptions {
  geo?: GeoLocatorOptions;
  userAgentCacheEntries?: number;
  /** Where the visitor hash's daily salts live (Redis in a fleet, memory embedded); without it no visit gets a visitor. */
  salts?: VisitorSaltStore;
}

export class HitEnricher {
  readonly geo: GeoLocator;
  readonly userAgents: UserAgentCache;
  readonly #visitors: VisitorIds | null;

  constructor(options: HitEnricherOptions = {}) {
    this.geo = new GeoLocator(options.geo);
    this.userAgents = new UserAgentCache(options.userAgentCacheEntries);
    this.#visitors = options.salts ? new VisitorIds(options.salts) : null;
  }

  /** The batch's visitor column (visitor-ids.ts). */
  async visitorColumn(facts: VisitorFacts): Promise<TextColumn> {
    return this.#visitors ? this.#visitors.column(facts) : { index: new Uint32Array(facts.rows), values: [null] };
  }

  /** The enriched fields of every distinct User-Agent, address and referrer of a batch. */
  async enrichDistinct(facts: DistinctFacts): Promise<EnrichedValues> {
    const out = Object.fromEntries(ENRICHED_FIELDS.map((k) => [k, []])) as unknown as Record<EnrichedField, (string | null)[]>;
    const readers = await this.geo.open();
    const turns = new TurnSlices();
    for (let i = 0; i < facts.userAgent.length; i++) {
      const ua = this.userAgents.get(facts.userAgent[i] ?? null);
      for (const k of UA_KEYS) out[k].push(ua[k]);
      if (turns.due(i)) await turns.next();
    }
    for (let i = 0; i < facts.address.length; i++) {
      const ip = facts.address[i] ?? null;
      const geo = ip === null ? NO_GEO : this.geo.lookupWith(readers, ip);
      for (const k of GEO_KEYS) out[k].push(geo[k]);
      if (turns.due(i)) await turns.next();
    }
    for (let i = 0; i < facts.referrer.length; i++) {
      out.referrerDomain.push(referrerDomain(facts.referrer[i] ?? null));
      if (turns.due(i)) await turns.next();
    }
    return out as EnrichedValues;
  }

  /** The hits as enriched records (tests and benches; the write path keeps batches). */
  async enrich(hits: readonly RawHit[]): Promise<EventRecord[]> {
    const batch = new HitBatch();
    for (const h of hits) batch.push(h);
    const enriched = await this.enrichDistinct(batch.distinctFacts());
    return recordsFromBatch(batch.toEventBatch(enriched, ENRICHMENT_SOURCES, await this.visitorColumn(batch.visitorFacts())));
  }
}
