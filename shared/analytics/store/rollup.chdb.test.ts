// Invariant: an existing installation (events stored before the rollup existed, some of them
// twice under different tokens) gets its rollup created and backfilled once, by partition, while
// events keep arriving (some before the view's t0, some after, some copies of old events), and the
// rollup then answers exactly what raw events answer; a second start (another process) adds
// nothing; the view keeps it exact for retried and re-stored batches. A rollup made before its
// projections gets them, for its existing parts too, and top lists read whole UTC days and hours
// through them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRecord, newOrgId, sleep } from '../events/analytics-fixtures.ts';
import type { EventRecord } from '../events/analytics-event.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import { CREATE_EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { rollupTopSql } from '../clickhouse/clickhouse-sql.ts';
import { ROLLUP_PROJECTIONS, ROLLUP_TABLE, ROLLUP_VIEW, ROLLUP_VIEW_QUERY_MARK } from '../clickhouse/rollup-table.ts';
import { EVENT_FIELDS } from '../events/event-schema.ts';
import { ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import { parseAggregatesQuery } from '../reads/analytics-params.ts';
import { AppError } from '../../errors/app-error.ts';
import { AnalyticsStore } from './analytics-store.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-rollup-'));
let transport: ChdbTransport;
let raw: AnalyticsStore;

beforeAll(async () => {
  transport = new ChdbTransport(dir);
  raw = new AnalyticsStore(transport, { useRollup: false, syncSettleMillis: 50 });
});
afterAll(async () => {
  await transport?.close();
  rmSync(dir, { recursive: true, force: true });
});

const req = (q: Record<string, string>) => {
  const r = parseAggregatesQuery(q);
  if (r instanceof AppError) throw r;
  return r;
};

const spread = (orgId: string, n: number, startMs: number, spanMs: number): EventRecord[] =>
  Array.from({ length: n }, (_, i) =>
    eventRecord({
      orgId,
      createdAtMicros: String(BigInt(startMs + Math.floor((i * spanMs) / n)) * 1000n),
      shortCode: `roll-${i % 7}`,
      countryCode: ['DE', 'IN', 'NP', null][i % 4] ?? null,
      deviceType: i % 3 ? 'DESKTOP' : 'MOBILE',
      eventType: i % 11 ? 'CLICK' : 'METADATA_PREVIEW',
    }),
  );

describe('rollup on an existing installation (chDB)', () => {
  it('is created and backfilled by partition while events arrive; then equals raw events, also after re-stored batches', async () => {
    const orgId = newOrgId();
    await transport.exec(CREATE_EVENTS_TABLE);
    // Before the rollup: three months of events, one batch stored twice under two tokens.
    const old = spread(orgId, 3000, Date.UTC(2026, 2, 20), 70 * 86_400_000);
    await raw.insert(old.slice(0, 2000), randomUUID());
    await raw.insert(old.slice(2000), randomUUID());
    await raw.insert(old.slice(500, 900), randomUUID());

    const store = new AnalyticsStore(transport, { syncSettleMillis: 50 });
    await store.ensureSchema();
    expect(store.rollupReady).toBe(false);
    // While the backfill waits for t0: new events, and copies of old ones under a new token.
    await store.insert(spread(orgId, 500, Date.UTC(2026, 4, 10), 5 * 86_400_000), randomUUID());
    await store.insert(old.slice(100, 300), randomUUID());
    await store.rollupBackfill;
    expect(store.rollupBackfillError).toBeNull();
    expect(store.rollupReady).toBe(true);
    // After t0: more new events, a retried batch (same token) and old events stored again.
    const fresh = spread(orgId, 400, Date.UTC(2026, 4, 20), 2 * 86_400_000);
    const token = randomUUID();
    await store.insert(fresh, token);
    await store.insert(fresh, token);
    await store.insert(fresh.slice(0, 100), randomUUID());
    await store.insert(old.slice(2500, 2600), randomUUID());

    const ranges = [
      { from: '2026-03-20', to: '2026-05-31' },
      { from: '2026-04-01', to: '2026-04-30' },
      { from: '2026-05-20', to: '2026-05-21' },
    ];
    for (const tz of ['Europe/Berlin', 'Asia/Kathmandu', 'Asia/Kolkata', 'UTC']) {
      for (const range of ranges) {
        const queries: Record<string, string>[] = [
          { groupBy: 'time', interval: 'day' },
          { groupBy: 'time', interval: 'hour' },
          { groupBy: 'time', interval: 'week', countryCode: 'NP' },
          { groupBy: 'time', eventType: 'METADATA_PREVIEW', shortCode: 'roll-3' },
          ...ROLLUP_DIMENSIONS.map((d) => ({ groupBy: d, limit: '100' })),
        ];
        for (const q of queries) {
          const r = req({ ...range, ...q });
          const { plan, response: fromRollup } = await store.aggregatePlanned(orgId, tz, r);
          expect(plan.source).toBe('rollup');
          const fromRaw = await raw.aggregatePlanned(orgId, tz, r);
          expect(fromRollup, JSON.stringify({ tz, range, q })).toEqual(fromRaw.response);
          expect(fromRaw.plan.source).toBe('raw');
        }
      }
    }
    const all = await store.aggregate(orgId, 'UTC', req({ from: '2026-03-01', to: '2026-05-31', groupBy: 'time', eventType: 'CLICK' }));
    const clicks = [...old, ...spread(orgId, 500, Date.UTC(2026, 4, 10), 5 * 86_400_000), ...fresh].filter((e) => e.eventType === 'CLICK').length;
    expect(all.total).toBe(clicks);
    // Two filters: answered from raw events, the same way.
    const twoFilters = await store.aggregatePlanned(
      orgId,
      'UTC',
      req({ from: '2026-04-01', to: '2026-04-30', groupBy: 'time', countryCode: 'DE', deviceType: 'MOBILE' }),
    );
    expect(twoFilters.plan.source).toBe('raw');

    // Another process starting on the same database finds the backfill done and adds nothing.
    const [before] = await transport.queryRows<{ n: string }>(`SELECT toString(sum(events)) AS n FROM ${ROLLUP_TABLE}`, {});
    const second = new AnalyticsStore(transport, { syncSettleMillis: 50 });
    await second.ensureSchema();
    await second.rollupBackfill;
    expect(second.rollupReady).toBe(true);
    const [after] = await transport.queryRows<{ n: string }>(`SELECT toString(sum(events)) AS n FROM ${ROLLUP_TABLE}`, {});
    expect(after?.n).toBe(before?.n);
    await sleep(1);
  }, 60_000);

  it('a view an older version made (its events spread over the dimensions first) gets its query replaced in place: same t0, the same counts', async () => {
    const orgId = newOrgId();
    const viewQuery = async (): Promise<string> =>
      (
        await transport.queryRows<{ q: string }>(`SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = {n:String}`, {
          n: ROLLUP_VIEW,
        })
      )[0]?.q ?? '';
    const t0 = /fromUnixTimestamp64Micro\((\d+)/.exec(await viewQuery())?.[1];
    expect(t0).toBeDefined();
    // The older definition, as it stood before the grouped form (no look-up: a fresh organisation).
    const dims = [['time', 'CAST(NULL AS Nullable(String))'], ...ROLLUP_DIMENSIONS.map((d) => [d, `CAST(${EVENT_FIELDS[d].column} AS Nullable(String))`])];
    await transport.exec(`DROP VIEW ${ROLLUP_VIEW}`);
    await transport.exec(`CREATE MATERIALIZED VIEW ${ROLLUP_VIEW} TO ${ROLLUP_TABLE} AS
SELECT org_id AS org_id, event_type AS event_type, d.1 AS dimension, d.2 AS value, toDateTime(toStartOfFifteenMinutes(created_at), 'UTC') AS slot, count() AS events
FROM analytics_events ARRAY JOIN [${dims.map(([d, v]) => `tuple('${d}', ${v})`).join(', ')}] AS d
WHERE ingested_at >= fromUnixTimestamp64Micro(${t0}, 'UTC')
GROUP BY org_id, event_type, dimension, value, slot`);
    const before = spread(orgId, 300, Date.UTC(2026, 5, 1), 86_400_000);
    await raw.insert(before, randomUUID()); // counted by the older view
    const store = new AnalyticsStore(transport, { syncSettleMillis: 50 });
    await store.ensureSchema();
    await store.rollupBackfill;
    const now = await viewQuery();
    expect(now).toContain(ROLLUP_VIEW_QUERY_MARK);
    expect(/fromUnixTimestamp64Micro\((\d+)/.exec(now)?.[1]).toBe(t0);
    const after = spread(orgId, 300, Date.UTC(2026, 5, 1), 86_400_000);
    await store.insert(after, randomUUID()); // counted by the replaced one
    for (const q of [{ groupBy: 'time', interval: 'hour' }, ...ROLLUP_DIMENSIONS.map((d) => ({ groupBy: d, limit: '100' }))]) {
      const r = req({ from: '2026-06-01', to: '2026-06-02', ...q });
      const { plan, response } = await store.aggregatePlanned(orgId, 'UTC', r);
      expect(response).toEqual(await raw.aggregate(orgId, 'UTC', r));
      expect(plan.source).toBe('rollup');
    }
    const clicks = [...before, ...after].filter((e) => e.eventType === 'CLICK').length;
    expect((await store.aggregate(orgId, 'UTC', req({ from: '2026-06-01', to: '2026-06-02', groupBy: 'time' }))).total).toBe(clicks);
  }, 60_000);

  it('a rollup made before its projections gets them at start, its existing parts too; top lists read whole UTC days and hours through them, equal to raw events', async () => {
    const orgId = newOrgId();
    const names = Object.values(ROLLUP_PROJECTIONS);
    const parts = async () =>
      transport.queryRows<{ name: string; has: number }>(
        `SELECT name, hasAll(projections, ['${names.join("', '")}']) AS has FROM system.parts WHERE database = currentDatabase() AND table = '${ROLLUP_TABLE}' AND active`,
        {},
      );
    await raw.ensureSchema(); // (when run alone: the view counts from its t0 on)
    await raw.rollupBackfill;
    // An older version's rollup: no projections, and parts written without them.
    for (const name of names) await transport.exec(`ALTER TABLE ${ROLLUP_TABLE} DROP PROJECTION IF EXISTS ${name}`);
    const events = [
      ...spread(orgId, 400, Date.UTC(2025, 1, 5, 22, 30), 3 * 86_400_000), // 5 February 23:30 Berlin to 8 February
      ...spread(orgId, 40, Date.UTC(2025, 1, 6, 23, 10), 3_600_000).map((e) => ({ ...e, botCategory: 'MONITOR' as const })), // past midnight in Berlin, not in UTC
      ...spread(orgId, 30, Date.UTC(2025, 1, 6, 18, 5), 30 * 60_000), // around midnight in Kathmandu (+05:45)
    ];
    await raw.insert(events, randomUUID());
    // One part of its own month (no merge would rebuild it with the projections).
    expect((await parts()).filter((p) => p.name.startsWith('202502_'))).toEqual([expect.objectContaining({ has: 0 })]);

    const store = new AnalyticsStore(transport, { syncSettleMillis: 50 });
    await store.ensureSchema();
    await store.rollupBackfill;
    const cases = [
      ['Europe/Berlin', { from: '2025-02-06', to: '2025-02-07' }], // the whole UTC day 6 February, and Berlin's edges by hour
      ['Europe/Berlin', { from: '2025-02-06', to: '2025-02-06' }], // one Berlin day: no whole UTC day
      ['Europe/Berlin', { from: '2025-02-05', to: '2025-02-09' }],
      ['Asia/Kathmandu', { from: '2025-02-06', to: '2025-02-08' }], // edges by hour and by 15-minute slot
      ['Asia/Kathmandu', { from: '2025-02-07', to: '2025-02-07' }],
    ] as const;
    const check = async () => {
      for (const [zone, range] of cases)
        for (const bots of ['include', 'exclude', 'only'])
          for (const groupBy of ['shortCode', 'countryCode']) {
            const r = req({ ...range, groupBy, bots, limit: '100' });
            const { plan, response } = await store.aggregatePlanned(orgId, zone, r);
            expect(plan.source).toBe('rollup');
            expect(response, JSON.stringify({ zone, range, bots, groupBy })).toEqual(await raw.aggregate(orgId, zone, r));
          }
    };
    await check(); // while the old parts may still lack the projections
    for (let i = 0; i < 200 && (await parts()).some((p) => p.has === 0); i++) await sleep(100);
    expect((await parts()).every((p) => p.has === 1)).toBe(true);
    await check();
    // The whole days and hours are answered from the projections.
    const { plan } = await store.aggregatePlanned(orgId, 'Europe/Berlin', req({ ...cases[0][1], groupBy: 'shortCode' }));
    const explain = await transport.queryRows<{ explain: string }>(`EXPLAIN projections = 1 ${rollupTopSql('include', plan.pieces)}`, {
      orgId,
      eventType: 'CLICK',
      dimension: 'shortCode',
      fromSeconds: Number(plan.fromMicros / 1_000_000n),
      toSeconds: Number(plan.toMicros / 1_000_000n),
      dayFromSeconds: plan.days.fromSeconds,
      dayToSeconds: plan.days.toSeconds,
      hourFromSeconds: plan.hours.fromSeconds,
      hourToSeconds: plan.hours.toSeconds,
      limit: 10,
    });
    expect(plan.days.toSeconds - plan.days.fromSeconds).toBe(86_400);
    expect(plan.pieces).toEqual({ days: true, hours: true, slots: false });
    const reads = explain.map((r) => r.explain).filter((line) => line.includes('ReadFromMergeTree'));
    expect(reads.map((line) => line.trim().replace(/^[└─│ ]+/, ''))).toEqual([
      `ReadFromMergeTree (${ROLLUP_PROJECTIONS.day})`,
      `ReadFromMergeTree (${ROLLUP_PROJECTIONS.hour})`,
    ]);
    await store.close();
  }, 60_000);
});
