// The admin CLI's retention commands as processes: an organisation's own retention is set and
// cleared, a sweep of ClickHouse (over HTTP, the production path) removes exactly the events past
// their retention and prints what went, and a sweep of the embedded store is refused while the
// service that owns it runs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClickHouseTransport } from '../shared/analytics/clickhouse/http-clickhouse-transport.ts';
import { eventRecords } from '../shared/analytics/events/analytics-fixtures.ts';
import { AnalyticsStore } from '../shared/analytics/store/analytics-store.ts';
import { bootApi, type ApiFixture } from './support/api-fixture.ts';
import { startFakeClickHouse, type FakeClickHouse } from './support/fake-clickhouse-http.ts';
import { adminJson } from './support/service-process.ts';

let fx: ApiFixture;
let clickhouse: FakeClickHouse;
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'cli-sweep-'));

beforeAll(async () => {
  fx = await bootApi();
  clickhouse = await startFakeClickHouse(dir);
});
afterAll(async () => {
  await clickhouse?.close();
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

const DAY_MICROS = 86_400_000_000n;

describe('admin CLI: retention', () => {
  it("sets and clears an organisation's retention, refusing what is not a number of days", async () => {
    const org = await fx.svc.admin<{ id: string }>('org', 'create', '--name', 'Retained');
    expect(await fx.svc.admin('org', 'set-retention', '--org', org.id, '--days', '90')).toMatchObject({ retentionDays: 90 });
    expect(await fx.svc.admin('org', 'set-retention', '--org', org.id, '--days', 'default')).toMatchObject({ retentionDays: null });
    for (const days of ['0', '36501', 'forever']) {
      const r = await fx.svc.adminRaw('org', 'set-retention', '--org', org.id, '--days', days, '--json');
      expect(r.code, days).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('from 1 to 36500');
    }
  });

  it('refuses to sweep the embedded store while the service that owns it runs', async () => {
    const r = await fx.svc.adminRaw('analytics', 'sweep', '--json');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/DATA_DIR .* is in use by another shortlink process/);
  });

  it("sweeps ClickHouse by the service's and each organisation's retention, and prints what it removed", async () => {
    const kept = await fx.svc.admin<{ id: string }>('org', 'create', '--name', 'Keeps a year');
    const plain = await fx.svc.admin<{ id: string }>('org', 'create', '--name', 'Service default');
    await fx.svc.admin('org', 'set-retention', '--org', kept.id, '--days', '365');
    const store = new AnalyticsStore(new HttpClickHouseTransport({ url: clickhouse.url }), { syncSettleMillis: 50 });
    try {
      await store.ensureSchema();
      await store.rollupBackfill;
      const now = BigInt(Date.now()) * 1000n;
      const hour = 3_600_000_000n;
      // 40 days old: past the service's 30, within the organisation's 365.
      await store.insert(eventRecords(plain.id, 12, now - 40n * DAY_MICROS, hour), randomUUID());
      await store.insert(eventRecords(kept.id, 9, now - 40n * DAY_MICROS, hour), randomUUID());
      await store.insert(eventRecords(plain.id, 4, now - 2n * DAY_MICROS, hour), randomUUID());
      const env = { ...fx.svc.env, CLICKHOUSE_URL: clickhouse.url, ANALYTICS_RETENTION_DAYS: '30' };
      const report = await adminJson(env, 'analytics', 'sweep');
      expect(report).toMatchObject({ skipped: null, events: { removed: 12, organisationsWithOwnRetention: 1 } });
      expect(await store.countEvents(plain.id)).toBe(4);
      expect(await store.countEvents(kept.id)).toBe(9);
      expect(await adminJson(env, 'analytics', 'sweep')).toMatchObject({ events: { removed: 0 } });
    } finally {
      await store.close();
    }
  });
});
