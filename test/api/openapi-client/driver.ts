// Invariant: this driver calls every operation of the OpenAPI document through a client generated
// from it (openapi-typescript types + openapi-fetch), with no casts and no `any`; the contract test
// copies it next to the freshly generated `schema.d.ts`, type-checks it strictly, then runs it
// against the live API. If the document under-declares a parameter or a response, this file stops
// compiling.
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export interface DriverResult {
  savedShortCode: string;
  bulkSuccess: number;
  bulkFirstFailureCode: string;
  listedTotal: number;
  browsedHasMore: boolean;
  syncedNextSince: string | null;
  ndjson: string;
  csv: string;
  saveErrorCode: string;
  rateLimitedRetryAfter: string | null;
  aggregateTotal: number;
  firstBucketKey: string | null;
  topKeys: (string | null)[];
  purgeDryRunEvents: number;
  deletedShortCode: string;
}

export async function drive(baseUrl: string, key: string, today: string): Promise<DriverResult> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-KEY': key } });

  const saved = await client.POST('/link/external/v1/shortenedUrl/save', {
    body: { url: 'https://example.com/driver', shortCode: 'driver-0001', utmSource: 'newsletter', deepLinks: [] },
  });
  if (saved.data === undefined) throw new Error(`save failed: ${JSON.stringify(saved.error)}`);
  const savedShortCode: string = saved.data.response.shortCode;

  const refused = await client.POST('/link/external/v1/shortenedUrl/save', { body: { url: '' } });
  const saveErrorCode: string = refused.error?.errors[0]?.code ?? 'none';

  const bulk = await client.POST('/link/external/v1/shortenedUrl/bulkSave', {
    body: { data: [{ url: 'https://example.com/bulk-a' }, { url: 'not a url' }] },
  });
  if (bulk.data === undefined) throw new Error(`bulkSave failed: ${JSON.stringify(bulk.error)}`);
  const failure = bulk.data.response.failureRecords[0];
  const bulkFirstFailureCode: string = failure?.errors[0]?.code ?? 'none';
  const failedIndex: number | undefined = failure?.index;
  if (failedIndex !== 1) throw new Error(`bulkSave failure index ${String(failedIndex)}`);

  const listed = await client.GET('/link/external/v1/shortenedUrl', { params: { query: { page: 0, size: 10, query: `shortCode=${savedShortCode}` } } });
  if (listed.data === undefined) throw new Error(`list failed: ${JSON.stringify(listed.error)}`);
  const firstUrl: string | undefined = listed.data.response.data[0]?.url;
  if (firstUrl !== 'https://example.com/driver') throw new Error(`listed ${String(firstUrl)}`);

  const browsed = await client.GET('/link/external/v1/analytics/events', {
    params: { query: { from: today, to: today, limit: 10, clickSource: 'DIRECT', eventType: 'CLICK', shortCode: savedShortCode } },
  });
  if (browsed.data === undefined) throw new Error(`browse failed: ${JSON.stringify(browsed.error)}`);
  const nextCursor: string | null = browsed.data.response.nextCursor;
  if (nextCursor !== null) await client.GET('/link/external/v1/analytics/events', { params: { query: { from: today, to: today, cursor: nextCursor } } });

  const synced = await client.GET('/link/external/v1/analytics/events', { params: { query: { since: `${today}T00:00:00Z`, limit: 5 } } });
  if (synced.data === undefined) throw new Error(`sync failed: ${JSON.stringify(synced.error)}`);
  const after: string | null = synced.data.response.afterEventId;
  const nextSince: string | null = synced.data.response.nextSince;
  if (nextSince !== null && after !== null) {
    await client.GET('/link/external/v1/analytics/events', { params: { query: { since: nextSince, afterEventId: after } } });
  }

  const series = await client.GET('/link/external/v1/analytics/aggregates', {
    params: { query: { groupBy: 'time', from: today, to: today, interval: 'hour', eventType: 'CLICK', shortCode: savedShortCode } },
  });
  if (series.data === undefined) throw new Error(`aggregates failed: ${JSON.stringify(series.error)}`);
  const aggregateTotal: number = series.data.response.total;
  const firstBucketKey: string | null = series.data.response.data[0]?.key ?? null;
  const top = await client.GET('/link/external/v1/analytics/aggregates', {
    params: { query: { groupBy: 'countryCode', from: today, to: today, limit: 5, deviceType: 'DESKTOP', countryCode: 'DE', referrerDomain: 'example.com' } },
  });
  if (top.data === undefined) throw new Error(`aggregates failed: ${JSON.stringify(top.error)}`);
  const topKeys: (string | null)[] = top.data.response.data.map((x) => x.key);

  const ndjson = await client.GET('/link/external/v1/analytics/events/export', { params: { query: { from: today, to: today } }, parseAs: 'text' });
  const csv = await client.GET('/link/external/v1/analytics/events/export', { params: { query: { from: today, to: today, format: 'csv' } }, parseAs: 'text' });
  // An empty export has an empty body, which the client reads as no data.
  if (!ndjson.response.ok || !csv.response.ok) throw new Error(`export failed: ${ndjson.response.status} ${csv.response.status}`);

  const purge = await client.POST('/link/external/v1/analytics/events/purge', { body: { from: today, to: today, shortCode: savedShortCode, dryRun: true } });
  if (purge.data === undefined) throw new Error(`purge failed: ${JSON.stringify(purge.error)}`);
  const purgeDryRunEvents: number = purge.data.response.events;

  const deleted = await client.POST('/link/external/v1/shortenedUrl/delete', { body: { shortCode: savedShortCode, purgeAnalytics: false } });
  if (deleted.data === undefined) throw new Error(`delete failed: ${JSON.stringify(deleted.error)}`);
  const deletedShortCode: string = deleted.data.response.shortCode;

  // The crud bucket of the driver's organisation is small: keep listing until it refuses.
  let rateLimitedRetryAfter: string | null = null;
  for (let i = 0; i < 50 && rateLimitedRetryAfter === null; i++) {
    const r = await client.GET('/link/external/v1/shortenedUrl', { params: { query: { size: 1 } } });
    if (r.response.status === 429) rateLimitedRetryAfter = r.response.headers.get('retry-after');
  }

  return {
    aggregateTotal,
    firstBucketKey,
    topKeys,
    savedShortCode,
    bulkSuccess: bulk.data.response.bulkSaveSummary.successCount,
    bulkFirstFailureCode,
    listedTotal: listed.data.response.page.totalElements,
    browsedHasMore: browsed.data.response.hasMore,
    syncedNextSince: nextSince,
    ndjson: ndjson.data ?? '',
    csv: csv.data ?? '',
    saveErrorCode,
    rateLimitedRetryAfter,
    purgeDryRunEvents,
    deletedShortCode,
  };
}
