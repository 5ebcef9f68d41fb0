// Invariant: with CLICKHOUSE_CLUSTER set, the store sends a cluster exactly what analytics-schema.ts
// prints (every table ON CLUSTER: Replicated local tables, Distributed tables, the rollup, its view
// and its backfill state; the settings ALTER on the local table), acknowledges inserts only once
// stored on the shard with the configured quorum, reads one shard and syncs with sequential
// consistency under a quorum; and with it unset, it sends byte for byte the single-node statements
// and settings. Recorded through a proxy that runs each statement's single-node equivalent on the
// chDB stand-in, so the whole store contract also passes in cluster mode. A real cluster's
// behaviour (replication, quorum, distributed DDL) is not shown here: docs/scale-out.md.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterProxy, singleNodeStatement, type ClusterProxy, type RecordedStatement } from '../../../test/support/cluster-clickhouse-proxy.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../../../test/support/fake-clickhouse-http.ts';
import { analyticsSchema, schemaStatements } from '../clickhouse/analytics-schema.ts';
import { browseSql, feedCopiesSql, feedSql, syncSql } from '../clickhouse/clickhouse-sql.ts';
import { localTable, type ClusterOptions } from '../clickhouse/cluster-layout.ts';
import { ADD_EVENT_COLUMNS, CREATE_EVENTS_TABLE, TUNE_EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { HttpClickHouseTransport } from '../clickhouse/http-clickhouse-transport.ts';
import {
  addRollupProjections,
  CREATE_ROLLUP_BACKFILL_TABLE,
  CREATE_ROLLUP_TABLE,
  createRollupView,
  dropLegacyRollupView,
  ROLLUP_BACKFILL_TABLE,
  ROLLUP_TABLE,
  ROLLUP_VIEW,
  ROLLUP_VIEW_QUERY_MARK,
  rollupViewT0,
} from '../clickhouse/rollup-table.ts';
import { EVENT_FIELDS } from '../events/event-schema.ts';
import { eventRecords, newOrgId } from '../events/analytics-fixtures.ts';
import { positionAt } from '../reads/feed-page.ts';
import { ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import { parseAggregatesQuery, parseEventsQuery, type AggregatesRequest, type SyncRequest } from '../reads/analytics-params.ts';
import { AppError } from '../../errors/app-error.ts';
import { analyticsStoreContract } from './analytics-store.contract.ts';
import { AnalyticsStore, type AnalyticsStoreOptions } from './analytics-store.ts';

const CLUSTER: ClusterOptions = { name: 'events', insertQuorum: 2 };
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'ch-cluster-'));
let server: FakeClickHouse;
let proxy: ClusterProxy;
const open: AnalyticsStore[] = [];

beforeAll(async () => {
  server = await startFakeClickHouse(dir);
  proxy = await startClusterProxy(server.url, CLUSTER.name);
});

afterAll(async () => {
  for (const s of open) await s.close();
  await proxy?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const storeVia = (url: string, options: AnalyticsStoreOptions): AnalyticsStore => {
  const s = new AnalyticsStore(new HttpClickHouseTransport({ url }), { syncSettleMillis: 20, rollupT0LeadMs: 300, ...options });
  open.push(s);
  return s;
};

const syncReq = (q: Record<string, string>): SyncRequest => {
  const r = parseEventsQuery(q);
  if (r instanceof AppError || r.mode !== 'sync') throw new Error('not a sync request');
  return r;
};
const dailySeries = (day: string): AggregatesRequest => {
  const r = parseAggregatesQuery({ from: day, to: day, groupBy: 'time', interval: 'hour' });
  if (r instanceof AppError) throw r;
  return r;
};

const isDdl = (s: RecordedStatement): boolean => /^\s*(CREATE|ALTER|DROP)\b/.test(s.sql);
const isInsert = (s: RecordedStatement): boolean => /^\s*INSERT\b/.test(s.sql);
/** The statement as the store wrote it: @clickhouse/client trims it and adds the output format of a read. */
const text = (s: RecordedStatement): string => s.sql.replace(/\s*FORMAT \w+$/, '');
const sqlOf = (list: RecordedStatement[]): string[] => list.map(text);
const trimmed = (list: string[]): string[] => list.map((s) => s.trim());
/** Settings in the statement's text (`SETTINGS a = 1, b = 'x'`, the last SETTINGS list) and in the URL. */
const settingsOf = (s: RecordedStatement): Record<string, string> => {
  const inText: Record<string, string> = {};
  const list = /\bSETTINGS ((?:\w+ = (?:'[^']*'|\w+)(?:, )?)+)(?:\s+VALUES|\s*$)/.exec(s.sql)?.[1] ?? '';
  for (const m of list.matchAll(/(\w+) = ('[^']*'|\w+)/g)) inText[m[1]!] = m[2]!.replace(/^'|'$/g, '');
  return { ...inText, ...s.settings };
};

describe('CLICKHOUSE_CLUSTER: what the store sends (recorded through the cluster proxy)', () => {
  const day = new Date().toISOString().slice(0, 10);
  const orgId = newOrgId();

  it('creates the printed schema, every statement ON CLUSTER, and counts events stored before its view into the rollup', async () => {
    // Events stored before the rollup's view existed: the backfill must count them, through the cluster's statements.
    const first = storeVia(proxy.url, { cluster: CLUSTER });
    await first.ensureSchema();
    await first.insert(eventRecords(orgId, 3, BigInt(Date.now()) * 1000n), randomUUID());
    await first.close();
    const direct = new HttpClickHouseTransport({ url: server.url });
    for (const sql of [`DROP VIEW ${ROLLUP_VIEW}`, `TRUNCATE TABLE ${ROLLUP_TABLE}`, `TRUNCATE TABLE ${ROLLUP_BACKFILL_TABLE}`]) await direct.exec(sql);
    await direct.close();

    proxy.clear();
    const store = storeVia(proxy.url, { cluster: CLUSTER });
    expect(await store.ensureSchema()).toEqual({ tuned: true });
    await store.rollupBackfill;
    expect(store.rollupBackfillError).toBeNull();
    expect(store.rollupReady).toBe(true);

    const ddl = proxy.statements.filter(isDdl);
    const view = ddl.find((s) => s.sql.includes(`MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_VIEW}`));
    const t0 = rollupViewT0(view?.sql ?? '');
    expect(t0).not.toBeNull();
    // The statements printed, then (the backfill done) the first rollup's tables dropped.
    expect(sqlOf(ddl)).toEqual(trimmed([...schemaStatements(analyticsSchema(CLUSTER), t0!), ...analyticsSchema(CLUSTER).dropLegacyTables]));
    expect(ddl).toHaveLength(18);
    for (const s of ddl) expect(s.sql).toMatch(/^(CREATE|ALTER|DROP) (TABLE|MATERIALIZED VIEW|VIEW) (IF (NOT )?EXISTS )?\w+ ON CLUSTER events/);
    const engines = ddl.flatMap((s) => [...s.sql.matchAll(/ENGINE = (\w+)/g)].map((m) => m[1]));
    expect(engines).toEqual([
      'ReplicatedReplacingMergeTree',
      'Distributed',
      'ReplicatedSummingMergeTree',
      'Distributed',
      'ReplicatedReplacingMergeTree',
      'Distributed',
    ]);
    // The view reads and writes the shards' local tables; the settings change goes to the local events table, the projections to the local rollup.
    expect(view!.sql).toContain(` TO ${localTable(ROLLUP_TABLE)} AS\n`);
    expect(view!.sql).toMatch(/\n\s*FROM analytics_events_local\n/);
    // An older version's events tables get the columns they lack, the local ones and the Distributed ones.
    expect(ddl.filter((s) => s.sql.startsWith('ALTER')).map((s) => s.sql.split(' ADD COLUMN')[0])).toEqual([
      'ALTER TABLE analytics_events_local ON CLUSTER events',
      'ALTER TABLE analytics_events ON CLUSTER events',
      'ALTER TABLE analytics_events_local ON CLUSTER events MODIFY SETTING merge_selector_base = 10',
      ...addRollupProjections('analytics_rollup_15m_v2_local', ' ON CLUSTER events'),
    ]);
    expect(ddl.find((s) => s.sql.includes('ADD PROJECTION'))?.sql).toMatch(
      /^ALTER TABLE analytics_rollup_15m_v2_local ON CLUSTER events ADD PROJECTION IF NOT EXISTS by_day \(SELECT /,
    );
    for (const alter of ddl.filter((s) => s.sql.startsWith('ALTER')).slice(0, 2)) {
      expect(alter.sql).toContain(
        `ADD COLUMN IF NOT EXISTS ${EVENT_FIELDS.botCategory.column} LowCardinality(Nullable(String)) AFTER ${EVENT_FIELDS.utmCampaign.column}`,
      );
    }

    // The backfill asked every replica for partitions and inserted through the Distributed tables, acknowledged by the shard.
    expect(proxy.statements.some((s) => s.sql.includes('FROM clusterAllReplicas(events, system.parts)') && s.params.table === 'analytics_events_local')).toBe(
      true,
    );
    const inserts = proxy.statements.filter(isInsert);
    expect(inserts.map((s) => /^INSERT INTO (\w+)/.exec(s.sql)?.[1])).toEqual([ROLLUP_TABLE, ROLLUP_BACKFILL_TABLE, ROLLUP_BACKFILL_TABLE]);
    for (const s of inserts) expect(settingsOf(s), s.sql).toMatchObject({ distributed_foreground_insert: '1', insert_quorum: '2' });

    // Counted once: the rollup answers the day's series with the 3 events.
    const { plan, response: series } = await store.aggregatePlanned(orgId, 'UTC', dailySeries(day));
    expect(plan.source).toBe('rollup');
    expect(series.total).toBe(3);
  });

  it('sends no DDL when the node already has the whole schema, tuned (a fleet starts many processes)', async () => {
    proxy.clear();
    const store = storeVia(proxy.url, { cluster: CLUSTER });
    expect(await store.ensureSchema()).toEqual({ tuned: true });
    await store.rollupBackfill;
    expect(store.rollupReady).toBe(true);
    expect(proxy.statements.filter(isDdl)).toEqual([]);
    expect(proxy.statements.length).toBeGreaterThan(0);
  });

  it('replaces an older view’s query ON CLUSTER, over the local tables, keeping its t0', async () => {
    const direct = new HttpClickHouseTransport({ url: server.url });
    const viewSql = async (): Promise<string> =>
      (
        await direct.queryRows<{ q: string }>('SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = {n:String}', {
          n: ROLLUP_VIEW,
        })
      )[0]?.q ?? '';
    const t0 = rollupViewT0(await viewSql());
    // A view of the form before the grouped one (no look-up), as an older version made it.
    const dims = [['time', 'CAST(NULL AS Nullable(String))'], ...ROLLUP_DIMENSIONS.map((d) => [d, `CAST(${EVENT_FIELDS[d].column} AS Nullable(String))`])];
    await direct.exec(`DROP VIEW ${ROLLUP_VIEW}`);
    await direct.exec(`CREATE MATERIALIZED VIEW ${ROLLUP_VIEW} TO ${ROLLUP_TABLE} AS
SELECT org_id AS org_id, event_type AS event_type, d.1 AS dimension, d.2 AS value, toDateTime(toStartOfFifteenMinutes(created_at), 'UTC') AS slot, count() AS events
FROM analytics_events ARRAY JOIN [${dims.map(([d, v]) => `tuple('${d}', ${v})`).join(', ')}] AS d
WHERE ingested_at >= fromUnixTimestamp64Micro(${t0}, 'UTC')
GROUP BY org_id, event_type, dimension, value, slot`);
    proxy.clear();
    const store = storeVia(proxy.url, { cluster: CLUSTER });
    await store.ensureSchema();
    expect(sqlOf(proxy.statements.filter(isDdl))).toEqual([analyticsSchema(CLUSTER).upgradeView(t0!)]);
    expect(proxy.statements.filter(isDdl)[0]!.sql).toMatch(
      new RegExp(`^ALTER TABLE ${ROLLUP_VIEW} ON CLUSTER events MODIFY QUERY SELECT [\\s\\S]*\\n {2}FROM analytics_events_local\\n`),
    );
    const now = await viewSql();
    expect(now).toContain(ROLLUP_VIEW_QUERY_MARK);
    expect(rollupViewT0(now)).toBe(t0);
    await direct.close();
  });

  it('acknowledges an insert once stored on its shard, with the quorum; syncs with sequential consistency; reads one shard', async () => {
    const store = storeVia(proxy.url, { cluster: CLUSTER });
    proxy.clear();
    await store.insert(eventRecords(orgId, 2, BigInt(Date.now()) * 1000n), 'token-1');
    const [insert] = proxy.statements;
    expect(insert!.sql).toMatch(/^INSERT INTO analytics_events \(.+\) FORMAT Native$/);
    expect(insert!.settings).toEqual({
      insert_deduplication_token: 'token-1',
      insert_deduplicate: '1',
      async_insert: '0',
      optimize_on_insert: '0',
      distributed_foreground_insert: '1',
      insert_quorum: '2',
    });

    proxy.clear();
    await new Promise((r) => setTimeout(r, 50));
    expect((await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }))).data).toHaveLength(5);
    await store.browse(
      orgId,
      'UTC',
      (() => {
        const r = parseEventsQuery({ from: day, to: day });
        if (r instanceof AppError || r.mode !== 'browse') throw new Error('not a browse request');
        return r;
      })(),
    );
    await store.feedPage(orgId, { after: positionAt(0n), limit: 10 });
    const [sync, browse, feed, copies] = proxy.statements;
    // The analytics.events feed reads the sync order, and its events' copies: sequential consistency too.
    expect(text(feed!)).toBe(`${feedSql(false)}, optimize_skip_unused_shards = 1, distributed_product_mode = 'local', select_sequential_consistency = 1`);
    expect(text(copies!)).toBe(`${feedCopiesSql()}, optimize_skip_unused_shards = 1, distributed_product_mode = 'local', select_sequential_consistency = 1`);
    expect(text(sync!)).toBe(
      `${syncSql({ shortCode: false, clickSource: false, eventType: false, afterEventId: false })}, optimize_skip_unused_shards = 1, distributed_product_mode = 'local', select_sequential_consistency = 1`,
    );
    expect(text(browse!)).toBe(
      `${browseSql({ shortCode: false, clickSource: false, eventType: false, cursor: false })}, optimize_skip_unused_shards = 1, distributed_product_mode = 'local'`,
    );
  });

  it('with a quorum of 1: inserts still wait for the shard, and sync asks no sequential consistency', async () => {
    const store = storeVia(proxy.url, { cluster: { name: 'events', insertQuorum: 1 } });
    proxy.clear();
    await store.insert(eventRecords(orgId, 1, BigInt(Date.now()) * 1000n), 'token-2');
    await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }));
    const [insert, sync] = proxy.statements;
    expect(insert!.settings).toEqual({
      insert_deduplication_token: 'token-2',
      insert_deduplicate: '1',
      async_insert: '0',
      optimize_on_insert: '0',
      distributed_foreground_insert: '1',
    });
    expect(text(sync!)).toMatch(/, optimize_skip_unused_shards = 1, distributed_product_mode = 'local'$/);
  });

  it('without CLICKHOUSE_CLUSTER sends the single-node statements and settings, byte for byte', async () => {
    proxy.clear();
    const store = storeVia(proxy.url, { cluster: null, rollupT0LeadMs: undefined });
    await store.ensureSchema();
    await store.insert(eventRecords(orgId, 1, BigInt(Date.now()) * 1000n), 'token-3');
    await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }));
    const ddl = proxy.statements.filter(isDdl);
    const t0 = rollupViewT0(ddl.find((s) => s.sql.includes('MATERIALIZED VIEW'))?.sql ?? '');
    expect(sqlOf(ddl)).toEqual(
      trimmed([
        CREATE_EVENTS_TABLE,
        ADD_EVENT_COLUMNS,
        dropLegacyRollupView(''),
        CREATE_ROLLUP_TABLE,
        CREATE_ROLLUP_BACKFILL_TABLE,
        createRollupView(t0!),
        TUNE_EVENTS_TABLE,
        ...addRollupProjections(ROLLUP_TABLE, ''),
      ]),
    );
    const insert = proxy.statements.find(isInsert);
    expect(insert!.settings).toEqual({ insert_deduplication_token: 'token-3', insert_deduplicate: '1', async_insert: '0', optimize_on_insert: '0' });
    expect(text(proxy.statements.at(-1)!)).toBe(syncSql({ shortCode: false, clickSource: false, eventType: false, afterEventId: false }));
    expect(proxy.statements.some((s) => /ON CLUSTER|Distributed|Replicated|_local\b|distributed_|insert_quorum/.test(s.sql))).toBe(false);
  });

  it('the proxy refuses what a cluster would not take: another cluster’s name, a Distributed table over another table', () => {
    expect(() => singleNodeStatement('CREATE TABLE t ON CLUSTER other (x UInt8) ENGINE = Memory', 'events')).toThrow(/ON CLUSTER other/);
    expect(() =>
      singleNodeStatement('CREATE TABLE IF NOT EXISTS a ON CLUSTER events AS b_local\nENGINE = Distributed(events, db, b_local, x)', 'events'),
    ).toThrow(/over b_local/);
  });
});

analyticsStoreContract(
  'a cluster (CLICKHOUSE_CLUSTER=events, quorum 2) through the single-node proxy',
  async () => new HttpClickHouseTransport({ url: proxy.url }),
  {
    cluster: CLUSTER,
    rollupT0LeadMs: 300,
  },
);
