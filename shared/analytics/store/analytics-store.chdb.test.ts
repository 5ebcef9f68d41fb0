// Invariant: the AnalyticsStore contract runs against the embedded chDB engine in a fresh
// temporary data directory (one chDB path per test process, shared by the whole file).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { analyticsStoreContract } from './analytics-store.contract.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

analyticsStoreContract('chdb (embedded)', async () => new ChdbTransport(dir));
