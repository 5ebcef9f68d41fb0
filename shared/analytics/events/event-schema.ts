// Invariant: this table is the one statement of the analytics event. Each entry is one field:
// its name (the event object's member, and the stored record's), its ClickHouse column and type,
// where its value comes from (the organisation, the raw hit, enrichment, a constant, the
// server), how the engine prints it in exports, and its JSON schema in the event object. The
// entries of the event object come in the spec's table order, which is the NDJSON key order and
// the CSV column order. Every other statement of the event (TS types, DDL, insert and select
// column lists, export SQL, the empty enrichment, the OpenAPI schema) is derived from it.
import { z } from 'zod';

import { BOT_CATEGORIES, CLICK_SOURCES, DEVICE_TYPES, EVENT_TYPES } from '../model/event-values.ts';

/** Version of the event object's shape; bump when a field changes meaning. */
export const ANALYTICS_SCHEMA_VERSION = 1;

/**
 * Where a field's value comes from: `link` is read from the link the hit was served for (its
 * member `linkKey`), `hit` is copied from the raw hit as the redirector built it, `clock` is the
 * click's time, `minted` is the event id (a UUIDv7 of the click's millisecond, minted when the
 * hit's batch is formed), `enriched` is computed in batches from the hit's User-Agent, address or
 * referrer, `visitor` is the keyed hash of the visit's organisation, address and User-Agent under
 * the salt of the organisation's local day (computed with the batch, null when there is none),
 * `constant` is the schema version, `server` is stamped by ClickHouse at insert.
 */
export type FieldOrigin = 'link' | 'hit' | 'clock' | 'minted' | 'enriched' | 'visitor' | 'constant' | 'server';

/**
 * How the engine prints a field in an export: `uuid` as its text, `instant` as Java's
 * Instant.toString(), `number` as digits, `text` as a string that may need CSV quoting,
 * `nullable` as `text` or null (CSV: empty field).
 */
export type ExportEncoding = 'uuid' | 'instant' | 'number' | 'text' | 'nullable';

export interface EventFieldSpec {
  readonly column: string;
  /** The column's ClickHouse type (DEFAULT expressions included). */
  readonly clickhouse: string;
  readonly origin: FieldOrigin;
  /** In the spec's event object (and so in exports), or storage only. */
  readonly inEvent: boolean;
  readonly export: ExportEncoding | null;
  /** The value's schema: the event object's member, or the stored value of a storage-only field. */
  readonly schema: z.ZodType;
  /** For `link` fields: the member of the link (HitLink) the value is read from. */
  readonly linkKey?: string;
}

const text = z.string();
const nullableText = z.string().nullable();
/** An ISO instant with microseconds, printed like Java's Instant.toString(). */
const instant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);
const LC_NULLABLE = 'LowCardinality(Nullable(String))';
const DATETIME = "DateTime64(6, 'UTC')";

const hit = <C extends string, T extends string, S extends z.ZodType, E extends ExportEncoding>(column: C, clickhouse: T, schema: S, encoding: E) =>
  ({ column, clickhouse, origin: 'hit', inEvent: true, export: encoding, schema }) as const;
const link = <C extends string, T extends string, S extends z.ZodType, E extends ExportEncoding, L extends string>(
  column: C,
  clickhouse: T,
  schema: S,
  encoding: E,
  linkKey: L,
) => ({ column, clickhouse, origin: 'link', inEvent: true, export: encoding, schema, linkKey }) as const;
const enriched = <C extends string, S extends z.ZodType>(column: C, schema: S) =>
  ({ column, clickhouse: LC_NULLABLE, origin: 'enriched', inEvent: true, export: 'nullable', schema }) as const;

export const EVENT_FIELDS = {
  orgId: { column: 'org_id', clickhouse: 'String', origin: 'link', linkKey: 'orgId', inEvent: false, export: null, schema: text },
  eventId: { column: 'event_id', clickhouse: 'UUID', origin: 'minted', inEvent: true, export: 'uuid', schema: z.uuid() },
  schemaVersion: {
    column: 'schema_version',
    clickhouse: `UInt8 DEFAULT ${ANALYTICS_SCHEMA_VERSION}`,
    origin: 'constant',
    inEvent: true,
    export: 'number',
    schema: z.literal(ANALYTICS_SCHEMA_VERSION),
  },
  createdAt: { column: 'created_at', clickhouse: DATETIME, origin: 'clock', inEvent: true, export: 'instant', schema: instant },
  shortCode: link('short_code', 'String', text, 'text', 'shortCode'),
  shortUrlId: link('short_url_id', 'String', text, 'text', 'id'),
  eventType: hit('event_type', 'LowCardinality(String)', z.enum(EVENT_TYPES), 'text'),
  clickSource: hit('click_source', 'LowCardinality(String)', z.enum(CLICK_SOURCES), 'text'),
  referrer: hit('referrer', 'Nullable(String)', nullableText, 'nullable'),
  referrerDomain: enriched('referrer_domain', nullableText),
  country: enriched('country', nullableText),
  countryCode: enriched('country_code', nullableText),
  city: enriched('city', nullableText),
  region: enriched('region', nullableText),
  browserName: enriched('browser_name', nullableText),
  browserVersion: enriched('browser_version', nullableText),
  osName: enriched('os_name', nullableText),
  osVersion: enriched('os_version', nullableText),
  deviceType: enriched('device_type', z.enum(DEVICE_TYPES).nullable()),
  deviceBrand: enriched('device_brand', nullableText),
  deviceModel: enriched('device_model', nullableText),
  utmSource: link('utm_source', 'Nullable(String)', nullableText, 'nullable', 'utmSource'),
  utmMedium: link('utm_medium', LC_NULLABLE, nullableText, 'nullable', 'utmMedium'),
  utmCampaign: link('utm_campaign', 'Nullable(String)', nullableText, 'nullable', 'utmCampaign'),
  botCategory: enriched('bot_category', z.enum(BOT_CATEGORIES).nullable()),
  /** Storage only: aggregates count its distinct values (metric=visitors); never in an event object, export or webhook. */
  visitorId: { column: 'visitor_id', clickhouse: 'Nullable(String)', origin: 'visitor', inEvent: false, export: null, schema: nullableText },
  ingestedAt: { column: 'ingested_at', clickhouse: `${DATETIME} DEFAULT now64(6)`, origin: 'server', inEvent: false, export: null, schema: text },
} as const satisfies Record<string, EventFieldSpec>;

export type EventFields = typeof EVENT_FIELDS;
export type EventFieldName = keyof EventFields;
type FieldsWhere<P> = { [K in EventFieldName]: EventFields[K] extends P ? K : never }[EventFieldName];

/** Members of the spec's event object. */
export type EventObjectField = FieldsWhere<{ inEvent: true }>;
/** Fields computed by enrichment. */
export type EnrichedField = FieldsWhere<{ origin: 'enriched' }>;
/** Fields read from the link the hit was served for (the organisation included). */
export type LinkField = FieldsWhere<{ origin: 'link' }>;
/** Fields copied from the raw hit as they are. */
export type HitField = FieldsWhere<{ origin: 'hit' }>;
/** The visitor's keyed hash. */
export type VisitorField = FieldsWhere<{ origin: 'visitor' }>;
/** Inserted fields held as text (every one but the event id and the click time). */
export type TextField = LinkField | HitField | EnrichedField | VisitorField;
/** Fields stored as DateTime64: records carry them as microseconds since the epoch, decimal text. */
export type InstantField = FieldsWhere<{ clickhouse: `DateTime64${string}` }>;

/** Field names in table order. */
export const EVENT_FIELD_NAMES = Object.keys(EVENT_FIELDS) as EventFieldName[];

const where = <K extends EventFieldName>(test: (spec: EventFieldSpec) => boolean): K[] => EVENT_FIELD_NAMES.filter((k) => test(EVENT_FIELDS[k])) as K[];

/** The spec's table order: the NDJSON key order and the CSV columns. */
export const EVENT_OBJECT_FIELDS: readonly EventObjectField[] = where<EventObjectField>((f) => f.inEvent);
export const ENRICHED_FIELDS: readonly EnrichedField[] = where<EnrichedField>((f) => f.origin === 'enriched');
export const LINK_FIELDS: readonly LinkField[] = where<LinkField>((f) => f.origin === 'link');
export const HIT_FIELDS: readonly HitField[] = where<HitField>((f) => f.origin === 'hit');
/** Fields the writer inserts (not constants or server stamps), in table order. */
export type InsertedField = TextField | 'eventId' | 'createdAt';
export const INSERTED_FIELDS: readonly InsertedField[] = where<InsertedField>((f) => f.origin !== 'constant' && f.origin !== 'server');
export const TEXT_FIELDS: readonly TextField[] = where<TextField>(
  (f) => f.origin === 'link' || f.origin === 'hit' || f.origin === 'enriched' || f.origin === 'visitor',
);

export function isInstantField(name: EventFieldName): name is InstantField {
  return EVENT_FIELDS[name].clickhouse.startsWith('DateTime64');
}

/** A field's key in stored records: instants as `<name>Micros`. */
export type RecordKey<K extends EventFieldName> = K extends InstantField ? `${K}Micros` : K;

export function recordKey<K extends EventFieldName>(name: K): RecordKey<K> {
  return (isInstantField(name) ? `${name}Micros` : name) as RecordKey<K>;
}
