// Invariant: TEST-ONLY. Opens an analytics store on one named transport with its schema ensured,
// for suites that exercise one adapter directly (product code gets its store from openBackends).
import { AnalyticsStore, type AnalyticsStoreOptions } from '../../shared/analytics/store/analytics-store.ts';
import { ChdbTransport } from '../../shared/analytics/clickhouse/chdb-transport.ts';
import { HttpClickHouseTransport, type HttpClickHouseOptions } from '../../shared/analytics/clickhouse/http-clickhouse-transport.ts';

/** chDB at `path` (one process per path). */
export async function openChdbStore(path: string, options: AnalyticsStoreOptions = {}): Promise<AnalyticsStore> {
  const store = new AnalyticsStore(new ChdbTransport(path), options);
  await store.ensureSchema();
  return store;
}

/** A ClickHouse server (or the test stand-in) at `url`. */
export async function openHttpStore(url: string, options: AnalyticsStoreOptions & Omit<HttpClickHouseOptions, 'url'> = {}): Promise<AnalyticsStore> {
  const store = new AnalyticsStore(new HttpClickHouseTransport({ ...options, url }), options);
  await store.ensureSchema();
  return store;
}
