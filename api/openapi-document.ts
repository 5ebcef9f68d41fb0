// Invariant: the OpenAPI 3.1 document is generated from the same zod schemas that validate
// requests (and that the tests hold responses to), plus the error catalog; nothing in it is
// written by hand twice.
import { z } from 'zod';
import { analyticsEventSchema } from '../shared/analytics/events/analytics-event.ts';
import { eventPageSchema } from '../shared/analytics/reads/event-page.ts';
import { ERROR_CATALOG, ERROR_CODES } from '../shared/errors/error-catalog.ts';
import { saveLinkRequestSchema } from '../shared/links/link-request.ts';
import { bulkSaveResponseSchema, errorEnvelopeSchema, linkResponseSchema, listResponseSchema } from '../shared/links/link-response.ts';

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' });
const envelope = (ref: string) => ({ type: 'object', properties: { response: { $ref: ref } }, required: ['response'] });

function errorResponses(codes: readonly (keyof typeof ERROR_CATALOG)[]) {
  const byStatus = new Map<number, string[]>();
  for (const c of codes) byStatus.set(ERROR_CATALOG[c].status, [...(byStatus.get(ERROR_CATALOG[c].status) ?? []), c]);
  return Object.fromEntries(
    [...byStatus].map(([status, cs]) => [
      String(status),
      { description: cs.join(', '), content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    ]),
  );
}

const COMMON: (keyof typeof ERROR_CATALOG)[] = ['SML003', 'SML010', 'SML005', 'SML001'];
const ok = (ref: string) => ({ '200': { description: 'Success', content: { 'application/json': { schema: envelope(ref) } } } });
const security = [{ apiKey: [] }];

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
        ErrorEnvelope: json(errorEnvelopeSchema),
        AnalyticsEvent: json(analyticsEventSchema),
        AnalyticsEventPage: json(eventPageSchema),
      },
    },
    'x-error-codes': Object.fromEntries(ERROR_CODES.map((c) => [c, ERROR_CATALOG[c]])),
    paths: {
      '/link/external/v1/shortenedUrl/save': {
        post: {
          summary: 'Create a short URL, or update the organisation\'s link with the same shortCode (merge).',
          security,
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/SaveLinkRequest' } } } },
          responses: { ...ok('#/components/schemas/ShortUrl'), ...errorResponses(['SML002', 'VE001', 'DL001', 'QE001', 'FE001', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl/bulkSave': {
        post: {
          summary: 'Create or update up to 30 short URLs; each record on its own.',
          security,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', minItems: 1, maxItems: 30, items: { $ref: '#/components/schemas/SaveLinkRequest' } } }, required: ['data'] } } },
          },
          responses: { ...ok('#/components/schemas/BulkSaveResponse'), ...errorResponses(['SML002', 'VE001', ...COMMON]) },
        },
      },
      '/link/external/v1/shortenedUrl': {
        get: {
          summary: 'List the organisation\'s short URLs (createdAt descending), filtered by the query DSL.',
          security,
          parameters: [
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'query', in: 'query', schema: { type: 'string' }, description: 'field=value combined with AND/OR, parentheses, double quotes.' },
          ],
          responses: { ...ok('#/components/schemas/ListResponse'), ...errorResponses(['SML002', 'VE001', ...COMMON]) },
        },
      },
      '/link/external/v1/analytics/events': {
        get: {
          summary: 'Browse (from/to) or sync (since, afterEventId) analytics events.',
          security,
          responses: { ...ok('#/components/schemas/AnalyticsEventPage'), ...errorResponses(['VE001', 'SML006', ...COMMON]) },
        },
      },
      '/link/external/v1/analytics/events/export': {
        get: {
          summary: 'Stream events as NDJSON (format=json, default) or CSV (format=csv). BUSINESS and ENTERPRISE.',
          security,
          responses: {
            '200': {
              description: 'The export file: one AnalyticsEvent per line (NDJSON), or a header row and one record per event (CSV).',
              content: {
                'application/x-ndjson': { schema: { type: 'string', description: 'One AnalyticsEvent object per line.' }, 'x-item-schema': { $ref: '#/components/schemas/AnalyticsEvent' } },
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
