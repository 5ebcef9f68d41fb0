// Invariant: this pure module is the only place that reads analytics query strings. It turns the
// raw query object into exactly one typed request (browse, sync or export) or an AppError with
// the spec's message, and never touches storage or the clock. A parameter given with an empty
// value counts as absent. Rules beyond the spec (documented here, decided for a careful client):
// - enum filters match case-insensitively and are normalised to upper case;
// - a non-integer `limit` is VE001; an integer outside 1..5000 is SML002 (a size constraint, like
//   the link list's `size`);
// - a parameter repeated in the query string is VE001;
// - the other mode's parameters are refused, not ignored: `cursor` in sync, `afterEventId` in
//   browse, `cursor`/`limit`/`afterEventId` on export;
// - `since` without `afterEventId` is inclusive; with it, strictly after that position;
// - dates, `since` and cursor positions outside the store's time range (1900–2299) are VE001.
import { AppError } from '../../errors/app-error.ts';
import { validationFailed } from '../../errors/domain-errors.ts';
import { isStorableMicros, parseInstantMicros, STORABLE_RANGE_TEXT } from '../../time/instant.ts';
import { isUuid } from '../../ids/model/uuid.ts';
import { decodeBrowseCursor, type BrowsePosition } from './browse-cursor.ts';
import { inclusiveDayCount, parseCalendarDate } from './local-day-range.ts';
import {
  AGGREGATE_GROUPS,
  AGGREGATE_INTERVALS,
  AGGREGATE_METRICS,
  AGGREGATE_ONLY_DIMENSIONS,
  type AggregateGroup,
  type AggregateMetric,
  type AggregateInterval,
  type AggregateOnlyDimension,
  DEFAULT_AGGREGATE_LIMIT,
  DEFAULT_EVENTS_LIMIT,
  DIMENSIONS,
  type Dimension,
  type DimensionValue,
  HOURLY_DEFAULT_MAX_DAYS,
  MAX_AGGREGATE_LIMIT,
  MAX_EVENTS_LIMIT,
  MAX_RANGE_DAYS,
} from '../model/dimensions.ts';
import { BOTS_FILTERS, type BotsFilter, EVENT_TYPES, type EventType } from '../model/event-values.ts';

export type RawQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface EventFilters {
  shortCode: DimensionValue<'shortCode'> | null;
  clickSource: DimensionValue<'clickSource'> | null;
  eventType: EventType | null;
  /** Bots in or out (default include). */
  bots: BotsFilter;
}

/** No filter: every event of the organisation. */
export const NO_EVENT_FILTERS: EventFilters = Object.freeze({ shortCode: null, clickSource: null, eventType: null, bots: 'include' });

export interface BrowseRequest {
  mode: 'browse';
  /** First calendar day, `YYYY-MM-DD`, in the organisation's time zone. */
  from: string;
  /** Last calendar day, inclusive. */
  to: string;
  cursor: BrowsePosition | null;
  limit: number;
  filters: EventFilters;
}

export interface SyncRequest {
  mode: 'sync';
  /** Sync position: microseconds since the epoch on the ingestion clock. */
  sinceMicros: bigint;
  afterEventId: string | null;
  limit: number;
  filters: EventFilters;
}

export type ExportFormat = 'json' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv'];

export interface ExportRequest {
  mode: 'export';
  from: string;
  to: string;
  format: ExportFormat;
  filters: EventFilters;
}

export const MISSING_MODE_MESSAGE = 'Must specify either browse mode (from/to) or sync mode (since) parameters.';
export const BOTH_MODES_MESSAGE = 'Cannot combine browse mode (from/to) and sync mode (since) parameters.';
export const EXPORT_SINCE_MESSAGE = 'since is not allowed on export; use from/to';

class Invalid {
  constructor(readonly error: AppError) {}
}

/** Reads one parameter: undefined when absent or empty; refuses repeats. */
function single(q: RawQuery, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v === '' ? undefined : v;
  const present = v.filter((x) => x !== '');
  if (present.length > 1) throw new Invalid(validationFailed(`Parameter '${name}' must be given at most once.`));
  return present[0];
}

function enumValue<T extends string>(raw: string | undefined, enumName: string, valid: readonly T[]): T | null {
  if (raw === undefined) return null;
  const upper = raw.toUpperCase();
  const hit = valid.find((v) => v === upper);
  if (hit === undefined) throw new Invalid(validationFailed(`Invalid value '${raw}' for enum ${enumName}. Valid values: ${valid.join(', ')}`));
  return hit;
}

/** A dimension's filter value as its registry entry reads it; null when absent. */
function dimensionFilter<K extends Dimension>(q: RawQuery, name: K): DimensionValue<K> | null {
  const raw = single(q, name);
  if (raw === undefined) return null;
  const filter = DIMENSIONS[name].filter as (typeof DIMENSIONS)[Dimension]['filter'];
  switch (filter.kind) {
    case 'exact':
      return raw as DimensionValue<K>;
    case 'upper':
      return raw.toUpperCase() as DimensionValue<K>;
    case 'lower':
      return raw.toLowerCase() as DimensionValue<K>;
    case 'enum':
      return enumValue(raw, filter.enumName, filter.values) as DimensionValue<K>;
  }
}

function filters(q: RawQuery): EventFilters {
  return {
    shortCode: dimensionFilter(q, 'shortCode'),
    clickSource: dimensionFilter(q, 'clickSource'),
    eventType: enumValue(single(q, 'eventType'), 'EventType', EVENT_TYPES),
    bots: choice(single(q, 'bots'), 'bots', BOTS_FILTERS) ?? 'include',
  };
}

function limit(q: RawQuery): number {
  const raw = single(q, 'limit');
  if (raw === undefined) return DEFAULT_EVENTS_LIMIT;
  if (!/^[+-]?\d{1,12}$/.test(raw.trim())) throw new Invalid(validationFailed(`Invalid value '${raw}' for parameter 'limit'. Expected an integer.`));
  const n = Number(raw.trim());
  if (n < 1 || n > MAX_EVENTS_LIMIT) throw new Invalid(new AppError('SML002', `limit: must be between 1 and ${MAX_EVENTS_LIMIT}`));
  return n;
}

/** Validates from/to: both valid dates, from <= to, at most 186 inclusive days. */
function dateRange(from: string, to: string): { from: string; to: string } {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    const day = parseCalendarDate(value);
    if (day === null) throw new Invalid(validationFailed(`Invalid date '${value}' for parameter '${name}'. Expected YYYY-MM-DD.`));
    if (!isStorableMicros(BigInt(day) * 86_400_000_000n))
      throw new Invalid(validationFailed(`Date '${value}' for parameter '${name}' is out of range (${STORABLE_RANGE_TEXT}).`));
  }
  const days = inclusiveDayCount(from, to);
  if (days < 1) throw new Invalid(validationFailed(`Invalid date range: from (${from}) must not be after to (${to}).`));
  if (days > MAX_RANGE_DAYS) throw new Invalid(validationFailed(`Date range cannot exceed ${MAX_RANGE_DAYS} days. Requested range: ${days} days.`));
  return { from, to };
}

function refuse(q: RawQuery, name: string, message: string): void {
  if (single(q, name) !== undefined) throw new Invalid(validationFailed(message));
}

function parseEvents(q: RawQuery): BrowseRequest | SyncRequest {
  const from = single(q, 'from');
  const to = single(q, 'to');
  const since = single(q, 'since');
  const browse = from !== undefined || to !== undefined;
  if (browse && since !== undefined) throw new Invalid(validationFailed(BOTH_MODES_MESSAGE));
  if (!browse && since === undefined) throw new Invalid(validationFailed(MISSING_MODE_MESSAGE));
  refuse(q, 'format', "Parameter 'format' is only allowed on the export endpoint.");
  if (browse) {
    if (from === undefined || to === undefined) throw new Invalid(validationFailed('Browse mode requires both from and to parameters.'));
    refuse(q, 'afterEventId', 'afterEventId belongs to sync mode and requires since.');
    const range = dateRange(from, to);
    const rawCursor = single(q, 'cursor');
    let cursor: BrowsePosition | null = null;
    if (rawCursor !== undefined) {
      cursor = decodeBrowseCursor(rawCursor);
      if (cursor === null) throw new Invalid(validationFailed(`Invalid cursor '${rawCursor}'. Pass nextCursor from the previous response unchanged.`));
    }
    return { mode: 'browse', ...range, cursor, limit: limit(q), filters: filters(q) };
  }
  refuse(q, 'cursor', 'cursor belongs to browse mode; in sync mode pass nextSince as since with afterEventId.');
  const sinceText = since ?? '';
  const sinceMicros = parseInstantMicros(sinceText.trim());
  if (sinceMicros === null) {
    throw new Invalid(validationFailed(`Invalid timestamp '${sinceText}' for parameter 'since'. Expected an ISO 8601 instant such as 2026-01-01T00:00:00Z.`));
  }
  if (!isStorableMicros(sinceMicros))
    throw new Invalid(validationFailed(`Timestamp '${sinceText}' for parameter 'since' is out of range (${STORABLE_RANGE_TEXT}).`));
  const afterEventId = single(q, 'afterEventId');
  if (afterEventId !== undefined && !isUuid(afterEventId)) throw new Invalid(validationFailed(`Invalid afterEventId '${afterEventId}'. Expected an event ID.`));
  return { mode: 'sync', sinceMicros, afterEventId: afterEventId?.toLowerCase() ?? null, limit: limit(q), filters: filters(q) };
}

function parseExport(q: RawQuery): ExportRequest {
  refuse(q, 'since', EXPORT_SINCE_MESSAGE);
  refuse(q, 'afterEventId', 'afterEventId is not allowed on export; use from/to');
  refuse(q, 'cursor', 'cursor is not allowed on export; the export holds the whole range');
  refuse(q, 'limit', 'limit is not allowed on export; the export holds the whole range');
  const from = single(q, 'from');
  const to = single(q, 'to');
  if (from === undefined || to === undefined) throw new Invalid(validationFailed('Export requires from and to parameters.'));
  const range = dateRange(from, to);
  const rawFormat = single(q, 'format');
  let format: ExportFormat = 'json';
  if (rawFormat !== undefined) {
    const lower = rawFormat.toLowerCase();
    const hit = EXPORT_FORMATS.find((f) => f === lower);
    if (hit === undefined)
      throw new Invalid(validationFailed(`Invalid value '${rawFormat}' for parameter 'format'. Valid values: ${EXPORT_FORMATS.join(', ')}`));
    format = hit;
  }
  return { mode: 'export', ...range, format, filters: filters(q) };
}

function run<T>(f: () => T): T | AppError {
  try {
    return f();
  } catch (err) {
    if (err instanceof Invalid) return err.error;
    throw err;
  }
}

/** The events filters, eventType never null (aggregates count clicks unless asked otherwise), and every other dimension's. */
export type AggregateFilters = EventFilters & { eventType: EventType } & { [K in AggregateOnlyDimension]: DimensionValue<K> | null };

export interface AggregatesRequest {
  mode: 'aggregates';
  from: string;
  to: string;
  groupBy: AggregateGroup;
  /** Set for groupBy=time only. */
  interval: AggregateInterval | null;
  /** Set for the dimensions only. */
  limit: number | null;
  /** What is counted: events (default) or distinct visitors. */
  metric: AggregateMetric;
  filters: AggregateFilters;
}

function choice<T extends string>(raw: string | undefined, name: string, valid: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  const hit = valid.find((v) => v.toLowerCase() === raw.toLowerCase());
  if (hit === undefined) throw new Invalid(validationFailed(`Invalid value '${raw}' for parameter '${name}'. Valid values: ${valid.join(', ')}`));
  return hit;
}

function aggregateLimit(q: RawQuery): number {
  const raw = single(q, 'limit');
  if (raw === undefined) return DEFAULT_AGGREGATE_LIMIT;
  if (!/^[+-]?\d{1,12}$/.test(raw.trim())) throw new Invalid(validationFailed(`Invalid value '${raw}' for parameter 'limit'. Expected an integer.`));
  const n = Number(raw.trim());
  if (n < 1 || n > MAX_AGGREGATE_LIMIT) throw new Invalid(new AppError('SML002', `limit: must be between 1 and ${MAX_AGGREGATE_LIMIT}`));
  return n;
}

function parseAggregates(q: RawQuery): AggregatesRequest {
  refuse(q, 'since', 'since is not allowed on aggregates; use from/to');
  refuse(q, 'afterEventId', 'afterEventId is not allowed on aggregates; use from/to');
  refuse(q, 'cursor', 'cursor is not allowed on aggregates; the answer holds the whole range');
  refuse(q, 'format', "Parameter 'format' is only allowed on the export endpoint.");
  const rawGroup = single(q, 'groupBy');
  if (rawGroup === undefined) throw new Invalid(validationFailed(`Parameter 'groupBy' is required. Valid values: ${AGGREGATE_GROUPS.join(', ')}`));
  const groupBy = choice(rawGroup, 'groupBy', AGGREGATE_GROUPS) as AggregateGroup;
  const from = single(q, 'from');
  const to = single(q, 'to');
  if (from === undefined || to === undefined) throw new Invalid(validationFailed('Aggregates require from and to parameters.'));
  const range = dateRange(from, to);
  const base = filters(q);
  const agg = {
    ...base,
    eventType: base.eventType ?? 'CLICK',
    ...Object.fromEntries(AGGREGATE_ONLY_DIMENSIONS.map((d) => [d, dimensionFilter(q, d)])),
  } as AggregateFilters;
  const metric = choice(single(q, 'metric'), 'metric', AGGREGATE_METRICS) ?? 'events';
  if (groupBy === 'time') {
    refuse(q, 'limit', 'limit applies to the dimensions, not to groupBy=time (every bucket is answered)');
    const interval =
      choice(single(q, 'interval'), 'interval', AGGREGATE_INTERVALS) ?? (inclusiveDayCount(range.from, range.to) <= HOURLY_DEFAULT_MAX_DAYS ? 'hour' : 'day');
    return { mode: 'aggregates', ...range, groupBy, interval, limit: null, metric, filters: agg };
  }
  refuse(q, 'interval', 'interval applies to groupBy=time only');
  return { mode: 'aggregates', ...range, groupBy, interval: null, limit: aggregateLimit(q), metric, filters: agg };
}

/** GET /analytics/aggregates: an aggregates request, or the AppError to answer with. */
export function parseAggregatesQuery(q: RawQuery): AggregatesRequest | AppError {
  return run(() => parseAggregates(q));
}

/** GET /analytics/events: a browse or sync request, or the AppError to answer with. */
export function parseEventsQuery(q: RawQuery): BrowseRequest | SyncRequest | AppError {
  return run(() => parseEvents(q));
}

/** GET /analytics/events/export: an export request, or the AppError to answer with. */
export function parseExportQuery(q: RawQuery): ExportRequest | AppError {
  return run(() => parseExport(q));
}

function must<T>(r: T | AppError): T {
  if (r instanceof AppError) throw r;
  return r;
}

/** parseEventsQuery, throwing the AppError (for handlers whose errors become the answer). */
export const eventsRequestOf = (q: RawQuery): BrowseRequest | SyncRequest => must(parseEventsQuery(q));
/** parseExportQuery, throwing the AppError. */
export const exportRequestOf = (q: RawQuery): ExportRequest => must(parseExportQuery(q));
/** parseAggregatesQuery, throwing the AppError. */
export const aggregatesRequestOf = (q: RawQuery): AggregatesRequest => must(parseAggregatesQuery(q));

/** A from/to pair given elsewhere than a query string (the purge's body): checked exactly as Browse's. */
export function parseDateRange(from: string, to: string): { from: string; to: string } | AppError {
  return run(() => dateRange(from, to));
}
