// Invariant: the OpenAPI 3.1 document is generated from the same zod schemas that validate
// requests (and that the tests hold responses to), plus the error catalog; nothing in it is
// written by hand twice.
import { resolveRequestSchema, resolveResponseSchema } from '../shared/redirects/resolve-link.ts';
import { deleteLinkRequestSchema } from '../shared/links/delete-link.ts';
import { purgeRequestSchema, purgeResponseSchema } from '../shared/analytics/store/store-analytics-purge.ts';
import { z } from 'zod';
import { analyticsEventSchema } from '../shared/analytics/events/analytics-event.ts';
import {
  AGGREGATE_GROUPS,
  AGGREGATE_INTERVALS,
  AGGREGATE_METRICS,
  DEFAULT_AGGREGATE_LIMIT,
  DEFAULT_EVENTS_LIMIT,
  DIMENSION_NAMES,
  DIMENSIONS,
  type Dimension,
  EVENTS_FILTER_DIMENSIONS,
  HOURLY_DEFAULT_MAX_DAYS,
  MAX_AGGREGATE_LIMIT,
  MAX_EVENTS_LIMIT,
  MAX_RANGE_DAYS,
} from '../shared/analytics/model/dimensions.ts';
import { EXPORT_FORMATS } from '../shared/analytics/reads/analytics-params.ts';
import { aggregateResponseSchema, visitorsResponseSchema } from '../shared/analytics/model/aggregate-response.ts';
import { eventPageSchema } from '../shared/analytics/reads/event-page.ts';
import { BOTS_FILTER_DESCRIPTION, BOTS_FILTERS, EVENT_TYPES } from '../shared/analytics/model/event-values.ts';
import { API_ERROR_CODES, ERROR_CATALOG } from '../shared/errors/error-catalog.ts';
import { BULK_MAX, saveLinkRequestSchema } from '../shared/links/link-request.ts';
import { bulkSaveResponseSchema, errorEnvelopeSchema, linkResponseSchema, listResponseSchema } from '../shared/links/link-response.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from '../shared/links/list-links.ts';

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' });
const envelope = (ref: string) => ({ type: 'object', properties: { response: { $ref: ref } }, required: ['response'] });

/** Answers that say when to retry carry Retry-After (seconds): 429 SML005 and 503 SML006. */
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 } },
};
const SAYS_WHEN_TO_RETRY = new Set([429, 503]);

function errorResponses(codes: readonly (keyof typeof ERROR_CATALOG)[]) {
  const byStatus = new Map<number, string[]>();
  for (const c of codes) byStatus.set(ERROR_CATALOG[c].status, [...(byStatus.get(ERROR_CATALOG[c].status) ?? []), c]);
  return Object.fromEntries(
    [...byStatus].map(([status, cs]) => [
      String(status),
      {
        description: cs.join(', '),
        ...(SAYS_WHEN_TO_RETRY.has(status) ? { headers: RETRY_AFTER } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      },
    ]),
  );
}

const COMMON: (keyof typeof ERROR_CATALOG)[] = ['SML003', 'SML010', 'SML005', 'SML001'];
const ok = (ref: string) => ({ '200': { description: 'Success', content: { 'application/json': { schema: envelope(ref) } } } });
/** A 200 whose `response` is one of several schemas (which one, the request says). */
const okOneOf = (...refs: string[]) => ({
  '200': {
    description: 'Success',
    content: {
      'application/json': { schema: { type: 'object', properties: { response: { oneOf: refs.map(($ref) => ({ $ref })) } }, required: ['response'] } },
    },
  },
});
const security = [{ apiKey: [] }];

type Parameter = { name: string; in: 'query'; required?: boolean; description: string; schema: Record<string, unknown> };
const query = (name: string, description: string, schema: Record<string, unknown>): Parameter => ({ name, in: 'query', description, schema });
const day = (name: string, what: string) =>
  query(name, `${what} calendar day (YYYY-MM-DD) in the organisation's time zone; from and to span at most ${MAX_RANGE_DAYS} days.`, {
    type: 'string',
    format: 'date',
  });
/** A dimension's filter parameter, from its registry entry. */
function dimensionFilter(name: Dimension): Parameter {
  const { filter, description } = DIMENSIONS[name] as (typeof DIMENSIONS)[Dimension];
  return query(name, description, filter.kind === 'enum' ? { type: 'string', enum: [...filter.values] } : { type: 'string', minLength: 1 });
}
const BOTS_PARAMETER = query('bots', BOTS_FILTER_DESCRIPTION, { type: 'string', enum: [...BOTS_FILTERS], default: 'include' });
const EVENT_FILTERS: Parameter[] = [
  ...EVENTS_FILTER_DIMENSIONS.map(dimensionFilter),
  query('eventType', 'Only events of this type (case-insensitive).', { type: 'string', enum: [...EVENT_TYPES] }),
  BOTS_PARAMETER,
];
const EVENTS_PARAMETERS: Parameter[] = [
  day('from', 'Browse mode: first'),
  day('to', 'Browse mode: last (inclusive)'),
  query('cursor', "Browse mode: the previous page's nextCursor, unchanged.", { type: 'string', minLength: 1 }),
  query('since', "Sync mode: an ISO 8601 instant, or the previous page's nextSince.", { type: 'string', format: 'date-time' }),
  query('afterEventId', "Sync mode, with since: the previous page's afterEventId.", { type: 'string', format: 'uuid' }),
  query('limit', 'Events per page.', { type: 'integer', minimum: 1, maximum: MAX_EVENTS_LIMIT, default: DEFAULT_EVENTS_LIMIT }),
  ...EVENT_FILTERS,
];
const EXPORT_PARAMETERS: Parameter[] = [
  { ...day('from', 'First'), required: true },
  { ...day('to', 'Last (inclusive)'), required: true },
  query('format', 'json: NDJSON, one event per line; csv: a header row and one row per event.', { type: 'string', enum: [...EXPORT_FORMATS], default: 'json' }),
  ...EVENT_FILTERS,
];

const AGGREGATES_PARAMETERS: Parameter[] = [
  {
    ...query('groupBy', 'time: a zero-filled series of local buckets; otherwise the top values of that dimension.', {
      type: 'string',
      enum: [...AGGREGATE_GROUPS],
    }),
    required: true,
  },
  { ...day('from', 'First'), required: true },
  { ...day('to', 'Last (inclusive)'), required: true },
  query('interval', `groupBy=time only: bucket size (week: ISO, Monday). Default hour when the range is ${HOURLY_DEFAULT_MAX_DAYS} days or less, else day.`, {
    type: 'string',
    enum: [...AGGREGATE_INTERVALS],
  }),
  query(
    'metric',
    "events: count events (default). visitors: count distinct visitors, a person once per local day of the organisation's time zone (a keyed hash of organisation, address and User-Agent under a daily salt; read from raw events).",
    { type: 'string', enum: [...AGGREGATE_METRICS], default: 'events' },
  ),
  query('limit', 'Dimensions only: how many top values.', { type: 'integer', minimum: 1, maximum: MAX_AGGREGATE_LIMIT, default: DEFAULT_AGGREGATE_LIMIT }),
  query('eventType', 'Only events of this type (case-insensitive; default CLICK).', { type: 'string', enum: [...EVENT_TYPES], default: 'CLICK' }),
  BOTS_PARAMETER,
  ...DIMENSION_NAMES.map(dimensionFilter),
];

/** The document; `serverUrl` is the configured public address of the API (API_PUBLIC_URL), never a request's Host. */
export function buildOpenApiDocument(serverUrl: string): object {
  return {
    openapi: '3.1.0',
    info: { title: 'Link Shortening Service API', version: 'v1' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      schemas: {
        SaveLinkRequest: json(saveLinkRequestSchema),
        ShortUrl: json(linkResponseSchema),
        BulkSaveResponse: json(bulkSaveResponseSchema),
        ListResponse: json(listResponseSchema),
        ResolveRequest: json(resolveRequestSchema),
        ResolveResponse: json(resolveResponseSchema),
        ErrorEnvelope: json(errorEnvelopeSchema),
        AnalyticsEvent: json(analyticsEventSchema),
        AnalyticsEventPage: json(eventPageSchema),
        AnalyticsAggregates: json(aggregateResponseSchema),
        AnalyticsVisitors: json(visitorsResponseSchema),
        DeleteRequest: json(deleteLinkRequestSchema),
        PurgeRequest: json(purgeRequestSchema),
        PurgeResponse: json(purgeResponseSchema),
      },
    },
    'x-error-codes': Object.fromEntries(API_ERROR_CODES.map((c) => [c, ERROR_CATALOG[c]])),
    paths: {
      '/link/external/v1/shortenedUrl/save': {
        post: {
          operationId: 'saveShortUrl',
          summary: "Create a short URL, or update the organisation's link with the same shortCode (merge).",
          security,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/SaveLinkRequest' } } } },
          responses: { ...ok('#/components/schemas/ShortUrl'), ...errorResponses(['SML002', 'VE001', 'DL001', 'QE001', 'FE001', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl/bulkSave': {
        post: {
          operationId: 'bulkSaveShortUrls',
          summary: `Create or update up to ${BULK_MAX} short URLs; each record on its own.`,
          security,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { data: { type: 'array', minItems: 1, maxItems: BULK_MAX, items: { $ref: '#/components/schemas/SaveLinkRequest' } } },
                  required: ['data'],
                },
              },
            },
          },
          responses: { ...ok('#/components/schemas/BulkSaveResponse'), ...errorResponses(['SML002', 'VE001', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl/resolve': {
        post: {
          operationId: 'resolveShortUrl',
          summary: 'What the redirector would do for a visitor (kind, location, matched rule), recording nothing. Scope links:read.',
          security,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ResolveRequest' } } } },
          responses: { ...ok('#/components/schemas/ResolveResponse'), ...errorResponses(['SML002', 'VE001', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl/delete': {
        post: {
          operationId: 'deleteShortUrl',
          summary:
            "Delete the organisation's link: it answers 404 EN001 everywhere from then on and its code is never given out again (to any organisation). Answers the Short URL object as it was. Scope links:write.",
          security,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/DeleteRequest' } } } },
          responses: { ...ok('#/components/schemas/ShortUrl'), ...errorResponses(['SML002', 'VE001', 'EN001', 'SML006', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl': {
        get: {
          operationId: 'listShortUrls',
          summary: "List the organisation's short URLs (createdAt descending), filtered by the query DSL.",
          security,
          parameters: [
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE, default: 0 } },
            { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
            { name: 'query', in: 'query', schema: { type: 'string' }, description: 'field=value combined with AND/OR, parentheses, double quotes.' },
          ],
          responses: { ...ok('#/components/schemas/ListResponse'), ...errorResponses(['SML002', 'VE001', ...COMMON]) },
        },
      },
      '/link/external/v1/analytics/events': {
        get: {
          operationId: 'listAnalyticsEvents',
          summary: 'Browse (from/to) or sync (since, afterEventId) analytics events.',
          security,
          parameters: EVENTS_PARAMETERS,
          responses: { ...ok('#/components/schemas/AnalyticsEventPage'), ...errorResponses(['VE001', 'SML006', ...COMMON]) },
        },
      },
      '/link/external/v1/analytics/aggregates': {
        get: {
          operationId: 'getAnalyticsAggregates',
          summary:
            "Counts of events (or, with metric=visitors, distinct visitors) in a range: a zero-filled time series in the organisation's time zone, or a dimension's top values.",
          security,
          parameters: AGGREGATES_PARAMETERS,
          responses: {
            ...okOneOf('#/components/schemas/AnalyticsAggregates', '#/components/schemas/AnalyticsVisitors'),
            ...errorResponses(['SML002', 'VE001', 'SML006', ...COMMON]),
          },
        },
      },
      '/link/external/v1/analytics/events/purge': {
        post: {
          operationId: 'purgeAnalyticsEvents',
          summary:
            "Remove the organisation's events (every type) of calendar days from..to, of one link or all; afterwards browse, sync, export and aggregates agree. dryRun only counts. Scope analytics:delete (not given to keys by default), bucket crud.",
          security,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PurgeRequest' } } } },
          responses: { ...ok('#/components/schemas/PurgeResponse'), ...errorResponses(['SML002', 'VE001', 'SML006', ...COMMON]) },
        },
      },
      '/link/external/v1/analytics/events/export': {
        get: {
          operationId: 'exportAnalyticsEvents',
          summary: 'Stream events as NDJSON (format=json, default) or CSV (format=csv). BUSINESS and ENTERPRISE.',
          security,
          parameters: EXPORT_PARAMETERS,
          responses: {
            '200': {
              description: 'The export file: one AnalyticsEvent per line (NDJSON), or a header row and one record per event (CSV).',
              content: {
                'application/x-ndjson': {
                  schema: { type: 'string', description: 'One AnalyticsEvent object per line.' },
                  'x-item-schema': { $ref: '#/components/schemas/AnalyticsEvent' },
                },
                'text/csv': { schema: { type: 'string' } },
              },
            },
            ...errorResponses(['VE001', 'FE001', 'SML006', ...COMMON]),
          },
        },
      },
    },
  };
}
