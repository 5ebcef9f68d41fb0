// Invariant: the embedded pipeline keeps what it was handed across a restart of its process
// objects: hits pushed before close() are readable after reopening the same DATA_DIR.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newOrgId, rawHit } from '../events/analytics-fixtures.ts';
import { openAnalyticsPipeline } from './analytics-pipeline.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openAnalyticsPipeline (embedded)', () => {
  it('chDB + file spool under DATA_DIR; close() loses nothing; data survives a reopen', async () => {
    const config = { DATA_DIR: dir, CLICKHOUSE_URL: undefined, REDIS_URL: undefined, REDIS_PREFIX: 'x:' };
    const logs: string[] = [];
    const first = await openAnalyticsPipeline(config, { syncSettleMillis: 10, log: (m) => logs.push(m) });
    expect(first.store.transport.description).toBe(`chdb:${join(dir, 'analytics')}`);
    expect(first.spool.description).toBe(`file-spool:${join(dir, 'analytics-spool')}`);
    const orgId = newOrgId();
    for (let i = 0; i < 1234; i++) first.sink.push(rawHit({ orgId, ip: '8.8.8.8' }));
    await first.close();
    const second = await openAnalyticsPipeline(config, { log: (m) => logs.push(m) });
    expect(await second.store.countEvents(orgId)).toBe(1234);
    await second.close();
    expect(logs.filter((l) => l.startsWith('store '))).toHaveLength(2);
  });
});
