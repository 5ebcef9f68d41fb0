// Invariant: the one statement of the analytics dimensions. Each is an event field of the same
// name (its column comes from EVENT_FIELDS), which aggregates group by (groupBy=<name>), which the
// rollup counts, and which filters aggregates by equality (so any top value can filter). Each
// entry says how a filter value is read, the OpenAPI text of that filter, the dashboard's title of
// its top list, and whether the events endpoints (browse, sync, export) take the filter too. The
// query parser, the store's SQL, the rollup's DDL, the OpenAPI document and the dashboard derive
// their lists from it, in this order (the rollup's rows and the dashboard's top lists). A
// dimension the rollup does not count (`rollup: false`) is read from raw events: adding one to the
// rollup later needs its counts backfilled, or older ranges would read short.
// Browser-safe: imports only other model modules.
import { BOT_CATEGORIES, CLICK_SOURCES, DEVICE_TYPES } from './event-values.ts';

/** How a filter's value is read: as given, upper- or lower-cased, or one of an enum's values (any case). */
export type DimensionFilter =
  | { readonly kind: 'exact' }
  | { readonly kind: 'upper' }
  | { readonly kind: 'lower' }
  | { readonly kind: 'enum'; readonly enumName: string; readonly values: readonly string[] };

export interface DimensionSpec {
  /** The dashboard's title of the dimension's top list. */
  readonly title: string;
  readonly filter: DimensionFilter;
  /** The OpenAPI description of the filter parameter. */
  readonly description: string;
  /** Also a filter of the events endpoints (browse, sync, export), not only of aggregates. */
  readonly eventsFilter: boolean;
  /** Counted by the rollup (default true); false: aggregates that group or filter by it read raw events. */
  readonly rollup?: false;
  /** What its null value means, shown in its top list (default: the value is unknown). */
  readonly nullText?: string;
}

const exactly = (name: string): string => `Only events whose ${name} is exactly this value (so any top value can filter).`;
const EXACT = { kind: 'exact' } as const;

export const DIMENSIONS = {
  shortCode: { title: 'Links', filter: EXACT, description: 'Only events of this link.', eventsFilter: true },
  countryCode: {
    title: 'Countries',
    filter: { kind: 'upper' },
    description: 'Only events from this country (ISO 3166 alpha-2, case-insensitive); an unknown code matches nothing.',
    eventsFilter: false,
  },
  deviceType: {
    title: 'Device types',
    filter: { kind: 'enum', enumName: 'DeviceType', values: DEVICE_TYPES },
    description: 'Only events of this device type (case-insensitive).',
    eventsFilter: false,
  },
  browserName: { title: 'Browsers', filter: EXACT, description: exactly('browserName'), eventsFilter: false },
  osName: { title: 'Operating systems', filter: EXACT, description: exactly('osName'), eventsFilter: false },
  referrerDomain: {
    title: 'Referrers',
    filter: { kind: 'lower' },
    description: 'Only events referred by this host (case-insensitive); an unknown host matches nothing.',
    eventsFilter: false,
  },
  clickSource: {
    title: 'Click sources',
    filter: { kind: 'enum', enumName: 'ClickSource', values: CLICK_SOURCES },
    description: 'Only events of this click source (case-insensitive).',
    eventsFilter: true,
  },
  utmSource: { title: 'UTM sources', filter: EXACT, description: exactly('utmSource'), eventsFilter: false },
  utmMedium: { title: 'UTM media', filter: EXACT, description: exactly('utmMedium'), eventsFilter: false },
  utmCampaign: { title: 'UTM campaigns', filter: EXACT, description: exactly('utmCampaign'), eventsFilter: false },
  botCategory: {
    title: 'Bots',
    filter: { kind: 'enum', enumName: 'BotCategory', values: BOT_CATEGORIES },
    description: 'Only events of this bot category (case-insensitive); people have none (use bots=exclude).',
    eventsFilter: false,
    rollup: false,
    nullText: 'People',
  },
} as const satisfies Record<string, DimensionSpec>;

export type Dimension = keyof typeof DIMENSIONS;
/** The dimensions in registry order. */
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[];
/** The dimensions the rollup counts, in registry order. */
export const ROLLUP_DIMENSIONS = DIMENSION_NAMES.filter((d) => (DIMENSIONS[d] as DimensionSpec).rollup !== false);
/** A filter value of the dimension after reading: an enum's value, or text. */
export type DimensionValue<K extends Dimension> = (typeof DIMENSIONS)[K]['filter'] extends { values: readonly (infer V)[] } ? V : string;
/** Dimensions the events endpoints filter on as well. */
export type EventsFilterDimension = { [K in Dimension]: (typeof DIMENSIONS)[K]['eventsFilter'] extends true ? K : never }[Dimension];
export const EVENTS_FILTER_DIMENSIONS = DIMENSION_NAMES.filter((d) => DIMENSIONS[d].eventsFilter) as EventsFilterDimension[];
/** Dimensions that filter aggregates only. */
export type AggregateOnlyDimension = Exclude<Dimension, EventsFilterDimension>;
export const AGGREGATE_ONLY_DIMENSIONS = DIMENSION_NAMES.filter((d) => !DIMENSIONS[d].eventsFilter) as AggregateOnlyDimension[];

export const AGGREGATE_GROUPS = ['time', ...DIMENSION_NAMES] as const;
export type AggregateGroup = 'time' | Dimension;
export const AGGREGATE_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
/** What aggregates count: events (default), or distinct visitors (a person once per local day). */
export const AGGREGATE_METRICS = ['events', 'visitors'] as const;
export type AggregateMetric = (typeof AGGREGATE_METRICS)[number];
export type AggregateInterval = (typeof AGGREGATE_INTERVALS)[number];

export const DEFAULT_AGGREGATE_LIMIT = 10;
export const MAX_AGGREGATE_LIMIT = 100;
/** Ranges of at most this many inclusive days default to hourly buckets, longer ones to daily. */
export const HOURLY_DEFAULT_MAX_DAYS = 2;
/** The longest range (inclusive days) browse, export and aggregates read. */
export const MAX_RANGE_DAYS = 186;
export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 5000;
