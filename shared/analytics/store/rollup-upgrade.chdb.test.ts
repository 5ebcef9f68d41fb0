// Invariant: an installation with the first rollup (no people rows) upgrades at start: the old
// view stops counting at once, the new rollup is counted from the raw events (people apart), its
// reads equal raw events for every bots filter, and the old tables are dropped once it is done.
// chDB, on a data folder of its own.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import { CREATE_EVENTS_TABLE, EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { LEGACY_ROLLUP } from '../clickhouse/rollup-table.ts';
import { eventRecords, isoMicros, newOrgId } from '../events/analytics-fixtures.ts';
import { parseAggregatesQuery } from '../reads/analytics-params.ts';
import { AnalyticsStore } from './analytics-store.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-rollup-upgrade-'));
const transport = new ChdbTransport(dir);
afterAll(async () => {
  await transport.close();
  rmSync(dir, { recursive: true, force: true });
});

const [legacyRollup, legacyBackfill] = LEGACY_ROLLUP.tables;

describe('upgrading from the first rollup', () => {
  it('drops the old view, counts the new rollup from raw events, and drops the old tables once done', async () => {
    // The previous version's objects: its rollup (no people column), its view and its bookkeeping.
    await transport.exec(CREATE_EVENTS_TABLE);
    await transport.exec(`CREATE TABLE ${legacyRollup} (org_id String, event_type LowCardinality(String), dimension LowCardinality(String),
      value Nullable(String), slot DateTime('UTC'), events UInt64) ENGINE = SummingMergeTree(events)
      PARTITION BY toYYYYMM(slot) ORDER BY (org_id, event_type, dimension, value, slot) SETTINGS allow_nullable_key = 1`);
    await transport.exec(
      `CREATE TABLE ${legacyBackfill} (partition_id String, t0_micros Int64, done UInt8) ENGINE = ReplacingMergeTree(done) ORDER BY partition_id`,
    );
    await transport.exec(`CREATE MATERIALIZED VIEW ${LEGACY_ROLLUP.view} TO ${legacyRollup} AS
      SELECT org_id, event_type, 'time' AS dimension, CAST(NULL AS Nullable(String)) AS value, toDateTime(toStartOfFifteenMinutes(created_at), 'UTC') AS slot, count() AS events
      FROM ${EVENTS_TABLE} GROUP BY org_id, event_type, dimension, value, slot`);
    const orgId = newOrgId();
    const start = isoMicros('2026-05-04T08:00:00Z');
    await new AnalyticsStore(transport).insert(
      [...eventRecords(orgId, 40, start, 60_000_000n), ...eventRecords(orgId, 10, start, 60_000_000n, { botCategory: 'MONITOR' })],
      randomUUID(),
    );

    const store = new AnalyticsStore(transport, { syncSettleMillis: 50, rollupT0LeadMs: 100 });
    await store.ensureSchema();
    const tables = async () =>
      (await transport.queryRows<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()', {})).map((r) => r.name);
    expect(await tables()).not.toContain(LEGACY_ROLLUP.view);
    await store.rollupBackfill;
    expect(store.rollupReady).toBe(true);
    expect(await tables()).not.toContain(legacyRollup);
    expect(await tables()).not.toContain(legacyBackfill);

    const raw = new AnalyticsStore(transport, { useRollup: false });
    for (const bots of ['include', 'exclude', 'only']) {
      const req = parseAggregatesQuery({ from: '2026-05-04', to: '2026-05-04', groupBy: 'time', interval: 'day', bots });
      if (req instanceof AppError) throw req;
      const { plan, response } = await store.aggregatePlanned(orgId, 'UTC', req);
      expect(plan.source, bots).toBe('rollup');
      expect(response, bots).toEqual(await raw.aggregate(orgId, 'UTC', req));
      expect(response.total, bots).toBe({ include: 50, exclude: 40, only: 10 }[bots]);
    }
    await store.close();
  });
});
