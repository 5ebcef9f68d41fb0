// Invariant: the AnalyticsStore contract runs against the embedded chDB engine in a fresh
// temporary data directory (one chDB path per test process, shared by the whole file).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyticsStoreContract } from './analytics-store.contract.ts';
import { AnalyticsStore } from './analytics-store.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import { EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { ROLLUP_VIEW } from '../clickhouse/rollup-table.ts';
import { CHROME_WINDOWS_UA, newOrgId, rawHit } from '../events/analytics-fixtures.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import { parseEventsQuery, type BrowseRequest } from '../reads/analytics-params.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

analyticsStoreContract('chdb (embedded)', async () => new ChdbTransport(dir));

describe('an events table of an older version (no bot_category)', () => {
  it('gets the column at start; its rows read botCategory null, new rows keep theirs', async () => {
    // After the contract's tests, on the same path (chDB binds one per process).
    {
      const transport = new ChdbTransport(dir);
      const store = new AnalyticsStore(transport);
      await store.ensureSchema();
      const orgId = newOrgId();
      const enricher = new HitEnricher();
      const clickedAtMicros = Date.parse('2026-03-10T12:00:00Z') * 1000;
      const [person] = await enricher.enrich([rawHit({ orgId, clickedAtMicros, userAgent: CHROME_WINDOWS_UA })]);
      await store.insert([person!], 'older-1');
      // What the previous version's table held: the same rows without the column (and no view of this version reading it).
      await transport.exec(`DROP VIEW ${ROLLUP_VIEW}`);
      await transport.exec(`ALTER TABLE ${EVENTS_TABLE} DROP COLUMN bot_category`);
      const restarted = new AnalyticsStore(transport);
      await restarted.ensureSchema();
      const [bot] = await enricher.enrich([rawHit({ orgId, clickedAtMicros: clickedAtMicros + 1, userAgent: 'curl/8.5.0' })]);
      await restarted.insert([bot!], 'older-2');
      const req = parseEventsQuery({ from: '2026-03-10', to: '2026-03-10' }) as BrowseRequest;
      const page = await restarted.browse(orgId, 'UTC', req);
      expect(page.data.map((e) => [e.eventId, e.botCategory])).toEqual([
        [person!.eventId, null],
        [bot!.eventId, 'HTTP_LIBRARY'],
      ]);
      await restarted.close();
    }
  });
});
