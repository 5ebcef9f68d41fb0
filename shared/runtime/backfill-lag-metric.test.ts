// Invariant: a process's METRICS_PORT registry reports the backfill lag of each spool it drains
// as the age of the oldest event still waiting there: while the store refuses, it is the age of
// the oldest spooled click (not merely a batch count), and it falls to 0 once the backfill worker
// emptied the spool. Real parts: chDB as the store (its events table detached for the outage)
// and a file spool on disk.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChdbStore } from '../../test/support/analytics-stores.ts';
import { EVENTS_TABLE } from '../analytics/clickhouse/events-table.ts';
import { eventRecords, newOrgId } from '../analytics/events/analytics-fixtures.ts';
import type { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import { createAnalyticsPipeline } from '../analytics/write-path/analytics-pipeline.ts';
import { FileSpool } from '../analytics/write-path/file-spool.ts';
import { createProcessMetrics } from './prometheus-metrics.ts';
import { silentLogger } from '../log/logger.ts';

const root = mkdtempSync(join(process.cwd(), '.tmp', 'backfill-lag-'));
let store: AnalyticsStore;

beforeAll(async () => {
  store = await openChdbStore(join(root, 'chdb'), { syncSettleMillis: 20 });
});

afterAll(async () => {
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

async function until(cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('shortlink_backfill_lag_seconds', () => {
  it('is the age of the oldest spooled click while the store refuses, and 0 once the backfill emptied the spool', async () => {
    const spool = await FileSpool.open(join(root, 'spool'));
    const orgId = newOrgId();
    const minutesAgo = (m: number): bigint => BigInt(Date.now() - m * 60_000) * 1000n;
    await store.transport.exec(`DETACH TABLE ${EVENTS_TABLE}`);
    let detached = true;
    const pipeline = createAnalyticsPipeline({ store, spool, backfill: [spool], logger: silentLogger });
    const metrics = createProcessMetrics();
    metrics.watchPipeline(pipeline);
    const gauge = async (name: string): Promise<number> => {
      const { values } = await metrics.registry.getSingleMetric(name)!.get();
      return values.find((v) => v.labels.spool === spool.description)?.value ?? -1;
    };
    try {
      // Ten and five minutes old: what a redirector spooled during an outage that began 10 min ago.
      await spool.append({ token: randomUUID(), records: eventRecords(orgId, 3, minutesAgo(10)) });
      await spool.append({ token: randomUUID(), records: eventRecords(orgId, 3, minutesAgo(5)) });
      await pipeline.backfill[0]!.drainOnce(); // the insert fails: the store is down
      expect(await gauge('shortlink_backfill_pending_batches')).toBe(2);
      const lag = await gauge('shortlink_backfill_lag_seconds');
      expect(lag).toBeGreaterThanOrEqual(600);
      expect(lag).toBeLessThan(660);
      expect(await metrics.registry.getSingleMetricAsString('shortlink_backfill_lag_seconds')).toMatch(/^# TYPE shortlink_backfill_lag_seconds gauge$/m);

      await store.transport.exec(`ATTACH TABLE ${EVENTS_TABLE}`);
      detached = false;
      await until(async () => (await pipeline.backfill[0]!.drainOnce()).failed === false && (await spool.size()) === 0);
      expect(await gauge('shortlink_backfill_lag_seconds')).toBe(0);
      expect(await gauge('shortlink_backfill_pending_batches')).toBe(0);
      expect(await store.countEvents(orgId)).toBe(6);
    } finally {
      if (detached) await store.transport.exec(`ATTACH TABLE ${EVENTS_TABLE}`);
      await pipeline.close();
      await spool.close();
    }
  }, 30_000);
});
