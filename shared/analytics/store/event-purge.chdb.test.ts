// Invariant: a purge of any range, of one link or all, removes exactly the selected events of the
// organisation (every type, re-stored copies included) and after it browse, sync, export and
// aggregates all agree, the rollup with the raw events: purges of random ranges and links are
// checked against a model of the events, and another organisation is untouched. A dry run only
// counts; before the rollup is complete a purge is refused with SML006. chDB.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import type { EventRecord } from '../events/analytics-event.ts';
import { eventRecord, newOrgId } from '../events/analytics-fixtures.ts';
import { parseAggregatesQuery, parseEventsQuery, parseExportQuery } from '../reads/analytics-params.ts';
import { ROLLUP_DIMENSIONS } from '../model/dimensions.ts';
import { localDayRangeMicros } from '../reads/local-day-range.ts';
import { AnalyticsStore } from './analytics-store.ts';
import { ROLLUP_TABLE } from '../clickhouse/rollup-table.ts';
import { purgeEvents } from './event-purge.ts';
import { mulberry32 } from '../../../test/support/prng.ts';

const dir = mkdtempSync(join(process.cwd(), '.tmp', 'chdb-purge-'));
let transport: ChdbTransport;
let store: AnalyticsStore;
let raw: AnalyticsStore;

beforeAll(async () => {
  transport = new ChdbTransport(dir);
  store = new AnalyticsStore(transport, { syncSettleMillis: 50, rollupT0LeadMs: 100 });
  await store.ensureSchema();
  await store.rollupBackfill;
  raw = new AnalyticsStore(transport, { useRollup: false, syncSettleMillis: 50 });
}, 60_000);
afterAll(async () => {
  await transport?.close();
  rmSync(dir, { recursive: true, force: true });
});

const TZ = 'Europe/Berlin';
const SPAN = { from: '2026-03-01', to: '2026-04-29' };
const DAY_MS = 86_400_000;

function events(orgId: string, n: number, rand: () => number): EventRecord[] {
  const start = Date.UTC(2026, 2, 1);
  return Array.from({ length: n }, (_, i) =>
    eventRecord({
      orgId,
      createdAtMicros: String(BigInt(start + Math.floor(rand() * 59 * DAY_MS)) * 1000n),
      shortCode: `purge-${i % 5}`,
      countryCode: ['DE', 'IN', 'NP', null][i % 4] ?? null,
      deviceType: i % 3 ? 'DESKTOP' : 'MOBILE',
      clickSource: i % 2 ? 'DIRECT' : 'QR_CODE',
      eventType: i % 9 ? 'CLICK' : 'METADATA_PREVIEW',
    }),
  );
}

function parsed<T>(r: T | AppError): T {
  if (r instanceof AppError) throw r;
  return r;
}

async function browseCount(orgId: string): Promise<number> {
  let n = 0;
  let q: Record<string, string> = { ...SPAN, limit: '5000' };
  for (;;) {
    const req = parsed(parseEventsQuery(q));
    if (req.mode !== 'browse') throw new Error('not browse');
    const page = await store.browse(orgId, TZ, req);
    n += page.data.length;
    if (!page.hasMore) return n;
    q = { ...q, cursor: page.nextCursor ?? '' };
  }
}

async function syncCount(orgId: string): Promise<number> {
  let n = 0;
  let q: Record<string, string> = { since: '1970-01-01T00:00:00Z', limit: '5000' };
  for (;;) {
    const req = parsed(parseEventsQuery(q));
    if (req.mode !== 'sync') throw new Error('not sync');
    const page = await store.sync(orgId, req);
    n += page.data.length;
    if (!page.hasMore) return n;
    q = { since: page.nextSince ?? '', afterEventId: page.afterEventId ?? '', limit: '5000' };
  }
}

async function exportCount(orgId: string): Promise<number> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of store.exportEvents(orgId, TZ, parsed(parseExportQuery({ ...SPAN, format: 'json' }))))
    text += decoder.decode(chunk, { stream: true });
  return text.split('\n').filter((l) => l !== '').length;
}

/** Every read of the organisation against the model: counts, and the rollup's answers equal the raw events' answers. */
async function expectAgreement(orgId: string, model: readonly EventRecord[], why: string): Promise<void> {
  expect(await browseCount(orgId), `browse ${why}`).toBe(model.length);
  expect(await syncCount(orgId), `sync ${why}`).toBe(model.length);
  expect(await exportCount(orgId), `export ${why}`).toBe(model.length);
  for (const eventType of ['CLICK', 'METADATA_PREVIEW']) {
    const { plan, response: series } = await store.aggregatePlanned(orgId, TZ, parsed(parseAggregatesQuery({ ...SPAN, groupBy: 'time', eventType })));
    expect(plan.source).toBe('rollup');
    expect(series.total, `aggregates ${eventType} ${why}`).toBe(model.filter((e) => e.eventType === eventType).length);
  }
  const queries: Record<string, string>[] = [
    { ...SPAN, groupBy: 'time', interval: 'hour', from: '2026-03-10', to: '2026-03-11' },
    { ...SPAN, groupBy: 'time', interval: 'week', shortCode: 'purge-2' },
    { ...SPAN, groupBy: 'time', countryCode: 'NP' },
    ...ROLLUP_DIMENSIONS.map((d) => ({ ...SPAN, groupBy: d, limit: '100' })),
  ];
  for (const q of queries) {
    const r = parsed(parseAggregatesQuery(q));
    const { plan, response: fromRollup } = await store.aggregatePlanned(orgId, TZ, r);
    expect(plan.source).toBe('rollup');
    expect(fromRollup, `${JSON.stringify(q)} ${why}`).toEqual(await raw.aggregate(orgId, TZ, r));
  }
}

describe('purging events (chDB)', () => {
  it('random ranges and links: the purge removes exactly the selection; browse, sync, export and aggregates (rollup) agree after each', async () => {
    const rand = mulberry32(20261127);
    const orgId = newOrgId();
    const otherId = newOrgId();
    let model = events(orgId, 3000, rand);
    const other = events(otherId, 600, rand);
    await store.insert(model.slice(0, 1500), randomUUID());
    await store.insert(model.slice(1500), randomUUID());
    // A batch stored again under another token: copies the reads collapse, and the purge removes too.
    await store.insert(model.slice(200, 500), randomUUID());
    await store.insert(other, randomUUID());
    await expectAgreement(orgId, model, 'before');

    for (let round = 0; round < 6; round++) {
      const a = Math.floor(rand() * 59);
      const b = Math.min(58, a + Math.floor(rand() * 20));
      const day = (d: number) => new Date(Date.UTC(2026, 2, 1) + d * DAY_MS).toISOString().slice(0, 10);
      const range = localDayRangeMicros(day(a), day(b), TZ);
      const shortCode = rand() < 0.5 ? `purge-${Math.floor(rand() * 5)}` : null;
      const selected = (e: EventRecord) =>
        BigInt(e.createdAtMicros) >= range.fromMicros && BigInt(e.createdAtMicros) < range.toMicros && (shortCode === null || e.shortCode === shortCode);
      const why = `round ${round}: ${day(a)}..${day(b)} ${shortCode ?? 'all links'}`;
      const expected = model.filter(selected).length;

      expect(await purgeEvents(store, { orgId, range, shortCode }, { dryRun: true }), why).toBe(expected);
      expect(await browseCount(orgId), `dry run ${why}`).toBe(model.length);
      expect(await purgeEvents(store, { orgId, range, shortCode }, { dryRun: false }), why).toBe(expected);
      model = model.filter((e) => !selected(e));
      await expectAgreement(orgId, model, why);
    }
    expect(model.length).toBeLessThan(3000);
    // The other organisation is untouched.
    await expectAgreement(otherId, other, 'other organisation');
    // All time, one link: every event of it, whatever its time.
    const link = 'purge-4';
    const left = model.filter((e) => e.shortCode === link).length;
    expect(await purgeEvents(store, { orgId, range: null, shortCode: link }, { dryRun: false })).toBe(left);
    model = model.filter((e) => e.shortCode !== link);
    await expectAgreement(orgId, model, 'all time, one link');
    // Merged: a key whose sum reached zero is gone, and the answers stay the same.
    await transport.exec(`OPTIMIZE TABLE ${ROLLUP_TABLE} FINAL`);
    await expectAgreement(orgId, model, 'after the rollup merged');
  }, 120_000);

  it('before the rollup is complete a purge answers SML006 and removes nothing; a dry run still counts', async () => {
    const orgId = newOrgId();
    const batch = events(orgId, 50, mulberry32(7));
    await store.insert(batch, randomUUID());
    const fresh = new AnalyticsStore(transport, { syncSettleMillis: 50 });
    expect(fresh.rollupReady).toBe(false);
    const target = { orgId, range: null, shortCode: null };
    await expect(purgeEvents(fresh, target, { dryRun: false })).rejects.toMatchObject({ code: 'SML006' });
    expect(await purgeEvents(fresh, target, { dryRun: true })).toBe(50);
    expect(await browseCount(orgId)).toBe(50);
  });
});
