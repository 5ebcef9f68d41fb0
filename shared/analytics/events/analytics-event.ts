// Invariant: the event's shapes are derived from EVENT_FIELDS, never written out. An
// AnalyticsEvent is the spec's event object: exactly its members, in table order, null kept as
// null. An EventRecord is one event as the writer spools it and the reads return it: the link's
// facts, the hit's, the event id, the click time and the enrichment, instants as exact
// microseconds (decimal text, JSON-safe). A HitLink is what a hit reads from its link. The sync
// position (ingestedAt) is stamped by the database at insert, never by the writer.
import { z } from 'zod';
import { formatMicros } from '../../time/instant.ts';
import {
  ANALYTICS_SCHEMA_VERSION,
  ENRICHED_FIELDS,
  EVENT_FIELDS,
  EVENT_OBJECT_FIELDS,
  isInstantField,
  recordKey,
  type EnrichedField,
  type EventFieldName,
  type EventFields,
  type EventObjectField,
  type HitField,
  type InsertedField,
  type InstantField,
  type LinkField,
  type RecordKey,
} from './event-schema.ts';

type ValueOf<K extends EventFieldName> = K extends InstantField ? string : z.infer<EventFields[K]['schema']>;

/** The facts of a hit that are stored as they are (type, source, referrer). */
export type HitFacts = { [K in HitField]: ValueOf<K> };

/** What an event reads from the link it was served for (members named as in the Link model). */
export type HitLink = { readonly [K in LinkField as EventFields[K]['linkKey']]: ValueOf<K> };

/** Fields the enrichment step computes from a RawHit. */
export type EnrichedFields = { [K in EnrichedField]: ValueOf<K> };

/** One event as written to the store (and to the spool). */
export type EventRecord = { [K in InsertedField as RecordKey<K>]: ValueOf<K> };

type EventObjectShape = { [K in EventObjectField]: EventFields[K]['schema'] };

/** The spec's "Analytics event object" (also its OpenAPI schema). */
export const analyticsEventSchema = z.strictObject(Object.fromEntries(EVENT_OBJECT_FIELDS.map((k) => [k, EVENT_FIELDS[k].schema])) as EventObjectShape);

export type AnalyticsEvent = z.infer<typeof analyticsEventSchema>;

/** Enrichment that found nothing (or could not run): every enriched field null. */
export const NO_ENRICHMENT: Readonly<EnrichedFields> = Object.freeze(Object.fromEntries(ENRICHED_FIELDS.map((k) => [k, null])) as EnrichedFields);

/** Builds the API object from a stored record. */
export function toAnalyticsEvent(r: EventRecord): AnalyticsEvent {
  const stored = r as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const k of EVENT_OBJECT_FIELDS) {
    if (EVENT_FIELDS[k].origin === 'constant') out[k] = ANALYTICS_SCHEMA_VERSION;
    else if (isInstantField(k)) out[k] = formatMicros(BigInt(String(stored[recordKey(k)])));
    else out[k] = stored[k];
  }
  return out as AnalyticsEvent;
}
