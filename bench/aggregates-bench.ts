// Invariant: one run (`npm run bench -- aggregates`, and the end of `npm run bench -- analytics`)
// measures aggregate reads from the rollup against the same reads over raw events (FINAL, GROUP
// BY), in the same process, on the same data, in the same run: BENCH_AGG_EVENTS generated events
// of one organisation over 90 days (analytics-bench's generator), the rollup then built by the
// store's own backfill, then a 30-day daily series, a 90-day hourly series, the top 10 countries
// over 90 days and the top 10 links over 30 days, each read both ways (p50 and p95 of
// BENCH_AGG_REPS timed reads after a warm-up, results checked equal). Ingest cost: CPU per event of
// inserting 50,000-event batches into the events table before and after the view is attached.
// Nothing is asserted against a fixed time. The run owns one fresh chDB directory under .tmp/.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { v7 as uuidv7 } from 'uuid';
import type { EventRecord } from '../shared/analytics/events/analytics-event.ts';
import { eventRecord } from '../shared/analytics/events/analytics-fixtures.ts';
import { ChdbTransport } from '../shared/analytics/clickhouse/chdb-transport.ts';
import { CREATE_EVENTS_TABLE } from '../shared/analytics/clickhouse/events-table.ts';
import { ROLLUP_TABLE } from '../shared/analytics/clickhouse/rollup-table.ts';
import { parseAggregatesQuery } from '../shared/analytics/reads/analytics-params.ts';
import { AnalyticsStore } from '../shared/analytics/store/analytics-store.ts';
import { AppError } from '../shared/errors/app-error.ts';
import { generatorSql } from './analytics-bench.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MS = 86_400_000;
const ZONE = 'Europe/Berlin';
const INGEST_BATCH = 50_000;

const envInt = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number.parseInt(v, 10);
};

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const r1 = (n: number): number => Math.round(n * 10) / 10;

function ingestBatch(orgId: string, n: number, at: number): EventRecord[] {
  const countries = ['DE', 'US', 'IN', 'NP', 'FR', null];
  return Array.from({ length: n }, (_, i) =>
    eventRecord({
      orgId,
      eventId: uuidv7(),
      createdAtMicros: String(BigInt(at - (i % 3_600_000)) * 1000n),
      shortCode: `c${i % 997}`,
      countryCode: countries[i % countries.length] ?? null,
      deviceType: i % 3 ? 'DESKTOP' : 'MOBILE',
      browserName: i % 2 ? 'Chrome' : 'Firefox',
    }),
  );
}

/** CPU microseconds (user + system, engine included: chDB runs in this process) per inserted event. */
async function insertCpu(store: AnalyticsStore, orgId: string, rounds: number): Promise<{ cpuMicrosPerEvent: number; eventsPerCpuSecond: number }> {
  const batches = Array.from({ length: rounds }, (_, i) => ingestBatch(orgId, INGEST_BATCH, Date.now() - i * DAY_MS));
  await store.insert(ingestBatch(orgId, 5000, Date.now()), randomUUID()); // warm-up
  const before = process.cpuUsage();
  for (const b of batches) await store.insert(b, randomUUID());
  const used = process.cpuUsage(before);
  const perEvent = (used.user + used.system) / (rounds * INGEST_BATCH);
  return { cpuMicrosPerEvent: r1(perEvent), eventsPerCpuSecond: Math.round(1e6 / perEvent) };
}

export async function aggregatesBench(): Promise<void> {
  const events = envInt('BENCH_AGG_EVENTS', 10_000_000);
  const reps = envInt('BENCH_AGG_REPS', 15);
  const rounds = envInt('BENCH_AGG_INGEST_ROUNDS', 4);
  const log = (s: string) => process.stdout.write(`${s}\n`);
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'aggregates-bench-'));
  const transport = new ChdbTransport(dir);
  try {
    const orgId = randomUUID();
    const raw = new AnalyticsStore(transport, { useRollup: false });
    await transport.exec(CREATE_EVENTS_TABLE);
    const ingestBefore = await insertCpu(raw, randomUUID(), rounds);
    log(`ingest without the view: ${ingestBefore.cpuMicrosPerEvent} µs CPU/event (${ingestBefore.eventsPerCpuSecond} events per CPU-second)`);

    // 90 days up to today, one organisation (the generator's four shares all name it).
    const todayMs = Date.now();
    const baseMs = todayMs - 90 * DAY_MS;
    let t = performance.now();
    await transport.exec(generatorSql(), {
      n: events,
      baseMicros: String(BigInt(baseMs) * 1000n),
      spanMicros: String(BigInt(90 * DAY_MS) * 1000n),
      org0: orgId,
      org1: orgId,
      org2: orgId,
      org3: orgId,
    });
    log(`generated ${events} events in ${r1((performance.now() - t) / 1000)} s`);

    const store = new AnalyticsStore(transport);
    t = performance.now();
    await store.ensureSchema();
    await store.rollupBackfill;
    if (!store.rollupReady) throw new Error(`rollup backfill failed: ${String(store.rollupBackfillError)}`);
    const backfillS = r1((performance.now() - t) / 1000);
    const [rows] = await transport.queryRows<{ n: string }>(`SELECT toString(count()) AS n FROM ${ROLLUP_TABLE}`, {});
    log(`rollup backfilled in ${backfillS} s (includes the 2 s t0 lead and settle): ${rows?.n} rollup rows for ${events} events`);

    const ingestAfter = await insertCpu(store, randomUUID(), rounds);
    log(`ingest with the view: ${ingestAfter.cpuMicrosPerEvent} µs CPU/event (${ingestAfter.eventsPerCpuSecond} events per CPU-second)`);

    const day = (offset: number) => new Date(todayMs + offset * DAY_MS).toISOString().slice(0, 10);
    const scenarios = [
      { name: '30-day daily series', q: { groupBy: 'time', interval: 'day', from: day(-30), to: day(-1) } },
      { name: '90-day hourly series', q: { groupBy: 'time', interval: 'hour', from: day(-89), to: day(0) } },
      { name: 'top 10 countries, 90 days', q: { groupBy: 'countryCode', limit: '10', from: day(-89), to: day(0) } },
      { name: 'top 10 links, 30 days', q: { groupBy: 'shortCode', limit: '10', from: day(-30), to: day(-1) } },
    ];
    const table: string[] = ['| read | rollup p50 ms | rollup p95 ms | raw p50 ms | raw p95 ms | raw / rollup (p50) |', '|---|---|---|---|---|---|'];
    for (const s of scenarios) {
      const req = parseAggregatesQuery(s.q);
      if (req instanceof AppError) throw req;
      const time = async (st: AnalyticsStore): Promise<{ ms: number[]; answer: unknown }> => {
        const answer = await st.aggregate(orgId, ZONE, req); // warm-up
        const ms: number[] = [];
        for (let i = 0; i < reps; i++) {
          const t1 = performance.now();
          await st.aggregate(orgId, ZONE, req);
          ms.push(performance.now() - t1);
        }
        return { ms, answer };
      };
      const a = await time(store);
      if ((await store.aggregatePlanned(orgId, ZONE, req)).plan.source !== 'rollup') throw new Error(`${s.name} did not read the rollup`);
      const b = await time(raw);
      if (JSON.stringify(a.answer) !== JSON.stringify(b.answer)) throw new Error(`${s.name}: rollup and raw answers differ`);
      table.push(
        `| ${s.name} | ${r1(pct(a.ms, 50))} | ${r1(pct(a.ms, 95))} | ${r1(pct(b.ms, 50))} | ${r1(pct(b.ms, 95))} | ${r1(pct(b.ms, 50) / pct(a.ms, 50))}x |`,
      );
    }
    log(`\naggregates: ${events} events in one organisation, ${ZONE}, chDB, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, ${reps} reads each`);
    log(table.join('\n'));
    log(
      `\ningest (store.insert of ${INGEST_BATCH}-event batches, CPU per event incl. engine): before the view ${ingestBefore.cpuMicrosPerEvent} µs (${ingestBefore.eventsPerCpuSecond}/CPU-s), after ${ingestAfter.cpuMicrosPerEvent} µs (${ingestAfter.eventsPerCpuSecond}/CPU-s); rollup backfill of ${events} events ${backfillS} s, ${rows?.n} rollup rows`,
    );
    await store.close();
  } finally {
    await transport.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
