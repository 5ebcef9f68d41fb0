// Invariant: the `response` payload of GET /analytics/aggregates is exactly one of these schemas
// (metric=events, the default, or metric=visitors); the OpenAPI document and the TypeScript types
// are derived from them. `interval` is present for groupBy=time only.
import { z } from 'zod';
import { AGGREGATE_GROUPS, AGGREGATE_INTERVALS } from './dimensions.ts';

export const aggregateResponseSchema = z.strictObject({
  groupBy: z.enum(AGGREGATE_GROUPS),
  /** groupBy=time only: the bucket size. */
  interval: z.enum(AGGREGATE_INTERVALS).optional(),
  /** The organisation's reporting time zone (IANA name) the range and buckets are cut in. */
  timeZone: z.string(),
  from: z.string(),
  to: z.string(),
  /** Events in the range after the filters. */
  total: z.number().int().min(0),
  /**
   * time: every bucket of the range in order, zero-filled, `key` its local start with UTC offset.
   * Otherwise: the top values by events (descending, then key); `key: null` for an unknown value.
   */
  data: z.array(z.strictObject({ key: z.string().nullable(), events: z.number().int().min(0) })),
});

export type AggregateResponse = z.infer<typeof aggregateResponseSchema>;

/** The answer to metric=visitors: the same head, `metric`, and distinct visitors where events were counted. */
export const visitorsResponseSchema = z.strictObject({
  groupBy: z.enum(AGGREGATE_GROUPS),
  interval: z.enum(AGGREGATE_INTERVALS).optional(),
  timeZone: z.string(),
  from: z.string(),
  to: z.string(),
  metric: z.literal('visitors'),
  /** Distinct visitors in the range after the filters (a person on two local days counts twice). */
  total: z.number().int().min(0),
  /**
   * time: every bucket of the range in order, zero-filled. Otherwise: the top values by visitors
   * (descending, then key); `key: null` for an unknown value.
   */
  data: z.array(z.strictObject({ key: z.string().nullable(), visitors: z.number().int().min(0) })),
});

export type VisitorsResponse = z.infer<typeof visitorsResponseSchema>;
