// Invariant: the analytics benchmark keeps working as the store evolves: a tiny run (its own chDB
// directory, a few seconds) completes every phase against the current schema and store, and every
// path reports the rows it was given. It asserts counts and sanity only, never a speed.
import { expect, test } from 'vitest';
import { analyticsBenchConfig, formatReport, runAnalyticsBench } from './analytics-bench.ts';

test('a tiny analytics bench run completes every phase with consistent counts', async () => {
  const config = {
    ...analyticsBenchConfig(['--quick'], {}),
    events: 40_000,
    ingestEvents: 2_000,
    ingestRounds: 1,
    exportRows: 3_000,
    reps: 1,
    scenarioBudgetMs: 1,
    mergeWaitMs: 1_000,
    resultsDir: null,
    log: () => {},
  };
  const r = await runAnalyticsBench(config);

  for (const x of [r.ingest.product, r.ingest.storeInsertOnly, r.ingest.enrichOnly, r.ingest.rawInsert]) {
    expect(x.rows).toBe(2_000);
    expect(x.rowsPerSec).toBeGreaterThan(0);
  }
  expect(r.ingest.engineBulk.rows).toBe(40_000);
  // ≈60 % of the generated events belong to the browsed organisation.
  expect(r.dataset.largestOrgEvents).toBeGreaterThan(20_000);
  expect(r.dataset.largestOrgEvents).toBeLessThan(28_000);

  expect(r.pages).toHaveLength(12);
  const rows = Object.fromEntries(r.pages.map((p) => [p.name, p.rows]));
  expect(rows['browse 90d first page, limit 100']).toBe(100);
  expect(rows['browse 90d first page, limit 5000']).toBe(5000);
  expect(rows['sync from the start (since=epoch), limit 100']).toBe(100);
  for (const p of r.pages) {
    expect(p.store.n).toBeGreaterThan(0);
    expect(p.raw.p50Ms).toBeGreaterThan(0);
  }

  expect(r.export.range.rows).toBeGreaterThanOrEqual(3_000);
  expect(r.export.runs).toHaveLength(5);
  for (const run of r.export.runs) expect(run.rows).toBe(r.export.range.rows);
  expect(formatReport(r)).toContain('store.exportEvents CSV');
}, 60_000);
