// Invariant: the AnalyticsStore contract runs over HTTP through @clickhouse/client, against the
// test-only ClickHouse HTTP endpoint backed by a real chDB engine (a fresh data directory).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeClickHouse, type FakeClickHouse } from '../../../test/support/fake-clickhouse-http.ts';
import { analyticsStoreContract } from './analytics-store.contract.ts';
import { HttpClickHouseTransport } from '../clickhouse/http-clickhouse-transport.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'ch-http-'));
let server: FakeClickHouse;

beforeAll(async () => {
  server = await startFakeClickHouse(dir);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

analyticsStoreContract('ClickHouse HTTP (@clickhouse/client → test endpoint on chDB)', async () => new HttpClickHouseTransport({ url: server.url }));

describe('HttpClickHouseTransport', () => {
  it('surfaces server errors as errors, and refused connections too', async () => {
    const t = new HttpClickHouseTransport({ url: server.url, requestTimeoutMs: 2000 });
    await expect(t.queryRows('SELECT throwIf(1, {m:String})', { m: "it's \\ broken" })).rejects.toThrow(/it's \\ broken/);
    await expect(t.queryRows('SELECT {s:String} AS s', { s: "a'b\\c\td\ne" })).resolves.toEqual([{ s: "a'b\\c\td\ne" }]);
    await server.stop();
    try {
      await expect(t.queryRows('SELECT 1', {})).rejects.toThrow();
    } finally {
      await server.start();
    }
    await expect(t.queryRows<{ x: number }>('SELECT 1 AS x', {})).resolves.toEqual([{ x: 1 }]);
    await t.close();
  });
});
