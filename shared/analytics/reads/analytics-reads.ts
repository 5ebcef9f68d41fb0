// Invariant: the API reaches the analytics store only through this port; query-string
// validation (spec messages verbatim) happens behind it, and an export is a stream, never a
// buffered file.
import type { Organization } from '../../orgs/organization.ts';
import type { AggregateResponse } from '../model/aggregate-response.ts';

export interface ExportStream {
  contentType: string;
  filename: string;
  /** The file's UTF-8 bytes, as the store streams them. */
  body: AsyncIterable<Uint8Array>;
}

export interface AnalyticsReads {
  /** Browse or sync page: the `response` payload of GET /analytics/events. */
  list(org: Organization, query: Record<string, unknown>): Promise<object>;
  export(org: Organization, query: Record<string, unknown>): Promise<ExportStream>;
  /** The `response` payload of GET /analytics/aggregates. */
  aggregates(org: Organization, query: Record<string, unknown>): Promise<AggregateResponse>;
}
