// Invariant: the `response` payload of GET /analytics/events is exactly this schema, in both
// modes: browse fills nextCursor (and leaves the sync members null), sync fills nextSince and
// afterEventId (and leaves nextCursor null). The OpenAPI document and the TypeScript type are
// both derived from it.
import { z } from 'zod';
import { analyticsEventSchema } from '../events/analytics-event.ts';

export const eventPageSchema = z.strictObject({
  data: z.array(analyticsEventSchema),
  hasMore: z.boolean(),
  /** Browse: pass back as `cursor` for the next page. */
  nextCursor: z.string().nullable(),
  /** Sync: pass back as `since`, with afterEventId, for the next page. */
  nextSince: z.string().nullable(),
  afterEventId: z.string().nullable(),
});

export type EventPage = z.infer<typeof eventPageSchema>;
