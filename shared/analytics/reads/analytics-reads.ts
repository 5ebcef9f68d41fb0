// Invariant: the API and the dashboard reach the analytics store only through this port, with
// requests the analytics params module has already read from a query string (spec messages
// verbatim); an export is a stream, never a buffered file.
import type { Organization } from '../../orgs/organization.ts';
import type { AggregateResponse, VisitorsResponse } from '../model/aggregate-response.ts';
import type { AggregatePlan } from './aggregate-plan.ts';
import type { AggregatesRequest, BrowseRequest, ExportRequest, SyncRequest } from './analytics-params.ts';
import type { EventPage } from './event-page.ts';

export interface ExportStream {
  contentType: string;
  filename: string;
  /** The file's UTF-8 bytes, as the store streams them. */
  body: AsyncIterable<Uint8Array>;
}

export interface AnalyticsReads {
  /** Browse or sync page: the `response` payload of GET /analytics/events. */
  list(org: Organization, req: BrowseRequest | SyncRequest): Promise<EventPage>;
  export(org: Organization, req: ExportRequest): Promise<ExportStream>;
  /** The `response` payload of GET /analytics/aggregates (metric=events). */
  aggregates(org: Organization, req: AggregatesRequest): Promise<AggregateResponse>;
  /** The `response` payload of GET /analytics/aggregates with metric=visitors. */
  visitors(org: Organization, req: AggregatesRequest): Promise<VisitorsResponse>;
  /** How an aggregates request is read in the organisation's zone: its table and its comparison period. */
  planAggregate(org: Organization, req: AggregatesRequest): AggregatePlan;
}
