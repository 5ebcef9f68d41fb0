// Invariant: an AnalyticsEvent is the spec's "Analytics event object": exactly its fields, in the
// spec's table order (ANALYTICS_EVENT_FIELDS, which also fixes the CSV columns and the NDJSON key
// order), with null kept as null. An EventRecord is the same event as the writer stores it: the
// organisation it belongs to and the click time as exact microseconds. The sync position
// (ingestedAt) is stamped by the database when the record's batch is inserted, never by the writer.
import { formatMicros } from '../../time/instant.ts';
import type { ClickSource, EventType } from './raw-hit.ts';

/** Version of the event object's shape; bump when a field changes meaning. */
export const ANALYTICS_SCHEMA_VERSION = 1;

export type DeviceType = 'MOBILE' | 'DESKTOP' | 'TABLET';

/** Field order is fixed by ANALYTICS_EVENT_FIELDS below, not by this declaration. */
export interface AnalyticsEvent extends EnrichedFields {
  eventId: string;
  schemaVersion: number;
  /** ISO instant, microseconds, printed like Java's Instant.toString(). */
  createdAt: string;
  shortCode: string;
  shortUrlId: string;
  eventType: EventType;
  clickSource: ClickSource;
  referrer: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
}

/** The spec's table order. */
export const ANALYTICS_EVENT_FIELDS = [
  'eventId',
  'schemaVersion',
  'createdAt',
  'shortCode',
  'shortUrlId',
  'eventType',
  'clickSource',
  'referrer',
  'referrerDomain',
  'country',
  'countryCode',
  'city',
  'region',
  'browserName',
  'browserVersion',
  'osName',
  'osVersion',
  'deviceType',
  'deviceBrand',
  'deviceModel',
  'utmSource',
  'utmMedium',
  'utmCampaign',
] as const satisfies readonly (keyof AnalyticsEvent)[];

/** Fields the enrichment step computes from a RawHit. */
export interface EnrichedFields {
  referrerDomain: string | null;
  country: string | null;
  countryCode: string | null;
  city: string | null;
  region: string | null;
  browserName: string | null;
  browserVersion: string | null;
  osName: string | null;
  osVersion: string | null;
  deviceType: DeviceType | null;
  deviceBrand: string | null;
  deviceModel: string | null;
}

/** Enrichment that found nothing (or could not run): every enriched field null. */
export const NO_ENRICHMENT: Readonly<EnrichedFields> = Object.freeze({
  referrerDomain: null,
  country: null,
  countryCode: null,
  city: null,
  region: null,
  browserName: null,
  browserVersion: null,
  osName: null,
  osVersion: null,
  deviceType: null,
  deviceBrand: null,
  deviceModel: null,
});

/** One event as written to the store (and to the spool): JSON-safe, no floating timestamps. */
export interface EventRecord extends EnrichedFields {
  orgId: string;
  eventId: string;
  /** Microseconds since the epoch, decimal string. */
  createdAtMicros: string;
  shortCode: string;
  shortUrlId: string;
  eventType: EventType;
  clickSource: ClickSource;
  referrer: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
}

/** Builds the API object from a stored record. */
export function toAnalyticsEvent(r: EventRecord): AnalyticsEvent {
  return {
    eventId: r.eventId,
    schemaVersion: ANALYTICS_SCHEMA_VERSION,
    createdAt: formatMicros(BigInt(r.createdAtMicros)),
    shortCode: r.shortCode,
    shortUrlId: r.shortUrlId,
    eventType: r.eventType,
    clickSource: r.clickSource,
    referrer: r.referrer,
    referrerDomain: r.referrerDomain,
    country: r.country,
    countryCode: r.countryCode,
    city: r.city,
    region: r.region,
    browserName: r.browserName,
    browserVersion: r.browserVersion,
    osName: r.osName,
    osVersion: r.osVersion,
    deviceType: r.deviceType,
    deviceBrand: r.deviceBrand,
    deviceModel: r.deviceModel,
    utmSource: r.utmSource,
    utmMedium: r.utmMedium,
    utmCampaign: r.utmCampaign,
  };
}
