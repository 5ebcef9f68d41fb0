// Invariant: the retention sweep removes exactly the raw events past their organisation's
// cut-off (the service's default, or the organisation's own, longer or shorter), dropping whole
// monthly partitions only where every organisation's cut-off allows it, keeps the rollup (so
// aggregates keep counting swept events), and sweeps the rollup by its own retention. chDB, on a
// table of its own (partition drops touch every organisation).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import { EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { eventRecords, isoMicros, newOrgId } from '../events/analytics-fixtures.ts';
import { parseAggregatesQuery, parseEventsQuery, type BrowseRequest } from '../reads/analytics-params.ts';
import { AnalyticsStore } from './analytics-store.ts';
import { planSweep, sweepRetention } from './retention-sweep.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-retention-'));
let transport: ChdbTransport;
let store: AnalyticsStore;

beforeAll(async () => {
  transport = new ChdbTransport(dir);
  store = new AnalyticsStore(transport, { syncSettleMillis: 50, rollupT0LeadMs: 100 });
  await store.ensureSchema();
  await store.rollupBackfill;
}, 60_000);
afterAll(async () => {
  await transport?.close();
  rmSync(dir, { recursive: true, force: true });
});

const DAY_MICROS = 86_400_000_000n;
const NOW = Date.UTC(2026, 5, 15); // 2026-06-15
const HOUR = 3_600_000_000n;

function parsed<T>(r: T | AppError): T {
  if (r instanceof AppError) throw r;
  return r;
}
const browse = async (orgId: string, from: string, to: string) =>
  (await store.browse(orgId, 'UTC', parsed(parseEventsQuery({ from, to, limit: '1000' })) as BrowseRequest)).data.length;
const daily = async (orgId: string, from: string, to: string) => {
  const { plan, response } = await store.aggregatePlanned(orgId, 'UTC', parsed(parseAggregatesQuery({ from, to, groupBy: 'time', interval: 'day' })));
  expect(plan.source).toBe('rollup');
  return response;
};

describe('planSweep', () => {
  const now = BigInt(NOW) * 1000n;
  it('keeps events for good without a retention, and drops no partition while some organisation keeps them', () => {
    expect(planSweep({ eventsDays: null, orgDays: new Map(), rollupDays: null }, now)).toEqual({
      defaultCutMicros: null,
      orgCuts: [],
      dropBeforeMicros: null,
      maxCutMicros: null,
      rollupCutMicros: null,
    });
    const own = planSweep({ eventsDays: null, orgDays: new Map([['a', 10]]), rollupDays: null }, now);
    expect(own).toMatchObject({ defaultCutMicros: null, dropBeforeMicros: null, maxCutMicros: now - 10n * DAY_MICROS });
  });
  it('drops partitions only before the earliest cut-off, and looks no later than the latest', () => {
    const p = planSweep(
      {
        eventsDays: 60,
        orgDays: new Map([
          ['long', 200],
          ['short', 10],
        ]),
        rollupDays: 400,
      },
      now,
    );
    expect(p.dropBeforeMicros).toBe(now - 200n * DAY_MICROS);
    expect(p.maxCutMicros).toBe(now - 10n * DAY_MICROS);
    expect(p.rollupCutMicros).toBe(now - 400n * DAY_MICROS);
  });
});

describe('sweepRetention on chDB', () => {
  it('removes nothing before the rollup is complete, and says why', async () => {
    const fresh = new AnalyticsStore(transport); // ensureSchema not run: its backfill has not finished
    const report = await sweepRetention(fresh, { eventsDays: 1, orgDays: new Map(), rollupDays: null }, NOW);
    expect(report.skipped).toMatch(/backfill has not finished/);
    expect(report.events.removed).toBe(0);
  });

  it('sweeps by each organisation’s cut-off, drops whole partitions where all allow it, and keeps aggregates', async () => {
    const byDefault = newOrgId(); // 60 days: cut 2026-04-16
    const longer = newOrgId(); // 200 days: cut 2025-11-27
    const shorter = newOrgId(); // 10 days: cut 2026-06-05
    const at = (iso: string) => isoMicros(iso);
    const seed = [
      ...eventRecords(byDefault, 5, at('2025-10-20T08:00:00Z'), HOUR), // a partition every cut-off has passed: dropped whole
      ...eventRecords(byDefault, 7, at('2026-01-10T08:00:00Z'), HOUR),
      ...eventRecords(byDefault, 4, at('2026-04-10T08:00:00Z'), HOUR),
      ...eventRecords(byDefault, 6, at('2026-04-20T08:00:00Z'), HOUR),
      ...eventRecords(longer, 8, at('2026-01-10T08:00:00Z'), HOUR),
      ...eventRecords(shorter, 3, at('2026-05-20T08:00:00Z'), HOUR),
      ...eventRecords(shorter, 2, at('2026-06-10T08:00:00Z'), HOUR),
    ];
    await store.insert(seed, randomUUID());
    await new Promise((r) => setTimeout(r, 200));
    const before = await daily(byDefault, '2026-01-01', '2026-06-30');
    expect(before.total).toBe(17);

    const policy = {
      eventsDays: 60,
      orgDays: new Map([
        [longer, 200],
        [shorter, 10],
      ]),
      rollupDays: null,
    };
    const report = await sweepRetention(store, policy, NOW);
    expect(report).toMatchObject({
      skipped: null,
      events: { removed: 5 + 7 + 4 + 3, partitionsDropped: ['202510'], cutoff: '2026-04-16T00:00:00.000Z', organisationsWithOwnRetention: 2 },
      rollup: { removed: 0, partitionsDropped: [], cutoff: null },
    });
    expect(await browse(byDefault, '2025-10-01', '2025-12-31')).toBe(0);
    expect(await browse(byDefault, '2026-01-01', '2026-04-15')).toBe(0);
    expect(await browse(byDefault, '2026-04-16', '2026-06-30')).toBe(6);
    expect(await browse(longer, '2026-01-01', '2026-06-30')).toBe(8);
    expect(await browse(shorter, '2026-05-01', '2026-06-04')).toBe(0);
    expect(await browse(shorter, '2026-06-05', '2026-06-30')).toBe(2);
    expect(await daily(byDefault, '2026-01-01', '2026-06-30')).toEqual(before);
    const [parts] = await transport.queryRows<{ n: string }>(
      `SELECT toString(count()) AS n FROM system.parts WHERE database = currentDatabase() AND table = '${EVENTS_TABLE}' AND active AND partition_id = '202510'`,
      {},
    );
    expect(parts?.n).toBe('0');
    expect((await sweepRetention(store, policy, NOW)).events.removed).toBe(0);

    // The rollup's own retention (100 days: cut 2026-03-07): older slots go, newer ones stay.
    const rollup = await sweepRetention(store, { ...policy, rollupDays: 100 }, NOW);
    expect(rollup.events.removed).toBe(0);
    expect(rollup.rollup.partitionsDropped).toEqual(['202510', '202601']);
    expect(rollup.rollup.removed).toBeGreaterThan(0);
    const after = await daily(byDefault, '2026-01-01', '2026-06-30');
    expect(after.total).toBe(4 + 6); // April's swept events still counted
    expect((await daily(longer, '2026-01-01', '2026-06-30')).total).toBe(0);
    expect((await daily(shorter, '2026-01-01', '2026-06-30')).total).toBe(5);
  });
});
