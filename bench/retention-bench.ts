// Invariant: one run (`npm run bench -- retention`) times the retention sweep on BENCH_RETENTION_EVENTS
// generated events (analytics-bench's generator) of four organisations over the last 365 days, on
// chDB, after the store's own rollup backfill: the service keeps 180 days, one organisation 90 and
// one 300, so the oldest months go whole and the rest by lightweight delete. It reports the sweep's
// time, the events and months it removed, and an idle sweep's time (the hourly cost when nothing
// is due), and checks what is left: every organisation's events before its cut-off are gone, none
// after it, and the rollup's daily counts are unchanged. Nothing is asserted against a fixed time.
// The run owns one fresh chDB directory under .tmp/.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChdbTransport } from '../shared/analytics/clickhouse/chdb-transport.ts';
import { CREATE_EVENTS_TABLE, EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { ROLLUP_TABLE } from '../shared/analytics/clickhouse/rollup-table.ts';
import { AnalyticsStore } from '../shared/analytics/store/analytics-store.ts';
import { planSweep, sweepRetention, type RetentionPolicy } from '../shared/analytics/store/retention-sweep.ts';
import { generatorSql } from './analytics-bench.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MS = 86_400_000;

const envInt = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number.parseInt(v, 10);
};
const r1 = (n: number): number => Math.round(n * 10) / 10;

export async function retentionBench(): Promise<void> {
  const events = envInt('BENCH_RETENTION_EVENTS', 10_000_000);
  const log = (s: string) => process.stdout.write(`${s}\n`);
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'retention-bench-'));
  const transport = new ChdbTransport(dir);
  try {
    const orgs = [randomUUID(), randomUUID(), randomUUID(), randomUUID()] as const;
    const nowMs = Date.now();
    await transport.exec(CREATE_EVENTS_TABLE);
    let t = performance.now();
    await transport.exec(generatorSql(), {
      n: events,
      baseMicros: String(BigInt(nowMs - 365 * DAY_MS) * 1000n),
      spanMicros: String(BigInt(365 * DAY_MS) * 1000n),
      org0: orgs[0],
      org1: orgs[1],
      org2: orgs[2],
      org3: orgs[3],
    });
    log(`generated ${events} events of 4 organisations over 365 days in ${r1((performance.now() - t) / 1000)} s`);
    const store = new AnalyticsStore(transport);
    await store.ensureSchema();
    await store.rollupBackfill;
    if (!store.rollupReady) throw new Error(`rollup backfill failed: ${String(store.rollupBackfillError)}`);
    const rollupSum = async () =>
      (await transport.queryRows<{ n: string }>(`SELECT toString(sum(events)) AS n FROM ${ROLLUP_TABLE} WHERE dimension = 'time'`, {}))[0]?.n;
    const rollupBefore = await rollupSum();

    const policy: RetentionPolicy = {
      eventsDays: 180,
      orgDays: new Map([
        [orgs[1], 90],
        [orgs[2], 300],
      ]),
      rollupDays: null,
    };
    const plan = planSweep(policy, BigInt(nowMs) * 1000n);
    const cutOf = (org: string): bigint => plan.orgCuts.find(([id]) => id === org)?.[1] ?? (plan.defaultCutMicros as bigint);
    const countWhere = async (org: string, op: '<' | '>='): Promise<number> => {
      const [row] = await transport.queryRows<{ n: string }>(
        `SELECT toString(count()) AS n FROM ${EVENTS_TABLE} FINAL WHERE org_id = {org:String} AND created_at ${op} fromUnixTimestamp64Micro({cut:Int64}, 'UTC')`,
        { org, cut: cutOf(org).toString() },
      );
      return Number(row?.n ?? 0);
    };
    const due: number[] = [];
    const kept: number[] = [];
    for (const org of orgs) {
      due.push(await countWhere(org, '<'));
      kept.push(await countWhere(org, '>='));
    }

    t = performance.now();
    const report = await sweepRetention(store, policy, nowMs);
    const sweepS = r1((performance.now() - t) / 1000);
    t = performance.now();
    const idle = await sweepRetention(store, policy, nowMs);
    const idleMs = r1(performance.now() - t);

    const expected = due.reduce((a, b) => a + b, 0);
    if (report.events.removed !== expected) throw new Error(`the sweep reported ${report.events.removed} removed, ${expected} were due`);
    for (const [i, org] of orgs.entries()) {
      if ((await countWhere(org, '<')) !== 0) throw new Error(`organisation ${i}: events before its cut-off remain`);
      if ((await countWhere(org, '>=')) !== kept[i]) throw new Error(`organisation ${i}: events after its cut-off were removed`);
    }
    if ((await rollupSum()) !== rollupBefore) throw new Error('the rollup changed');
    if (idle.events.removed !== 0) throw new Error('a second sweep removed events');

    log(`\nretention sweep: ${events} events of 4 organisations over 365 days, chDB, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}`);
    log('the service keeps 180 days, one organisation 90, one 300');
    log('| sweep | time | events removed | months dropped whole | events left |');
    log('|---|---|---|---|---|');
    log(
      `| first (due: ${due.join(' / ')}) | ${sweepS} s | ${report.events.removed} | ${report.events.partitionsDropped.length} (${report.events.partitionsDropped.join(', ')}) | ${kept.reduce((a, b) => a + b, 0)} |`,
    );
    log(`| idle (nothing due) | ${idleMs} ms | 0 | 0 | ${kept.reduce((a, b) => a + b, 0)} |`);
    log(`checked: each organisation's events before its cut-off gone, none after it; rollup total unchanged (${rollupBefore})`);
    await store.close();
  } finally {
    await transport.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
