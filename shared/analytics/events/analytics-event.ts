// Invariant: the event's shapes are derived from EVENT_FIELDS, never written out. An
// AnalyticsEvent is the spec's event object: exactly its members, in table order, null kept as
// null. An EventRecord is one event as the writer stores and spools it: the organisation, the
// hit's facts and the enrichment, instants as exact microseconds (decimal text, JSON-safe). The
// sync position (ingestedAt) is stamped by the database at insert, never by the writer.
import { z } from 'zod';
import { formatMicros } from '../../time/instant.ts';
import {
  ANALYTICS_SCHEMA_VERSION,
  ENRICHED_FIELDS,
  EVENT_FIELDS,
  EVENT_OBJECT_FIELDS,
  HIT_FIELDS,
  isInstantField,
  recordKey,
  type EnrichedField,
  type EventFieldName,
  type EventFields,
  type EventObjectField,
  type HitField,
  type InstantField,
  type RecordKey,
} from './event-schema.ts';

type ValueOf<K extends EventFieldName> = K extends InstantField ? string : z.infer<EventFields[K]['schema']>;

/** The raw facts of a hit that are stored as they are (organisation, ids, time, code, source, referrer, UTM). */
export type HitFacts = { [K in HitField as RecordKey<K>]: ValueOf<K> };

/** Fields the enrichment step computes from a RawHit. */
export type EnrichedFields = { [K in EnrichedField]: ValueOf<K> };

/** One event as written to the store (and to the spool). */
export type EventRecord = HitFacts & EnrichedFields;

type EventObjectShape = { [K in EventObjectField]: EventFields[K]['schema'] };

/** The spec's "Analytics event object" (also its OpenAPI schema). */
export const analyticsEventSchema = z.strictObject(Object.fromEntries(EVENT_OBJECT_FIELDS.map((k) => [k, EVENT_FIELDS[k].schema])) as EventObjectShape);

export type AnalyticsEvent = z.infer<typeof analyticsEventSchema>;

/** Enrichment that found nothing (or could not run): every enriched field null. */
export const NO_ENRICHMENT: Readonly<EnrichedFields> = Object.freeze(Object.fromEntries(ENRICHED_FIELDS.map((k) => [k, null])) as EnrichedFields);

const HIT_KEYS = HIT_FIELDS.map(recordKey);

/** The stored record of a hit: its raw facts as they are, then the enrichment. */
export function buildEventRecord(hit: HitFacts, enrichment: EnrichedFields): EventRecord {
  const facts = hit as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const k of HIT_KEYS) out[k] = facts[k];
  for (const k of ENRICHED_FIELDS) out[k] = enrichment[k];
  return out as EventRecord;
}

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
