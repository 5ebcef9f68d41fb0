// Invariant: every ClickHouse transport passes this one suite unchanged against the real engine
// it adapts (never a mock): the same events in, the same pages, sync positions and export bytes
// out. Each test writes under its own organisation id, so tests share one table safely.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEvent } from '../events/analytics-event.ts';
import { EVENT_OBJECT_FIELDS } from '../events/event-schema.ts';
import { CHROME_WINDOWS_UA, eventRecord, eventRecords, IPHONE_UA, isoMicros, newOrgId, rawHit, sleep } from '../events/analytics-fixtures.ts';
import { neutraliseFormula } from '../reads/csv-formula-guard.ts';
import {
  parseAggregatesQuery,
  parseEventsQuery,
  parseExportQuery,
  type BrowseRequest,
  type ExportRequest,
  type SyncRequest,
} from '../reads/analytics-params.ts';
import type { EventPage } from '../reads/event-page.ts';
import { positionAt, type FeedPage, type FeedPosition } from '../reads/feed-page.ts';
import { AnalyticsStore, type AnalyticsStoreOptions } from './analytics-store.ts';
import { aggregatesCases } from './aggregates.contract.ts';
import { sweepRetention } from './retention-sweep.ts';
import { EVENTS_TABLE, MERGE_SETTINGS } from '../clickhouse/events-table.ts';
import type { ClickHouseTransport } from '../clickhouse/clickhouse-transport.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import { AppError } from '../../errors/app-error.ts';

const SETTLE_MS = 60;

function browseReq(q: Record<string, string>): BrowseRequest {
  const r = parseEventsQuery(q);
  if (r instanceof AppError || r.mode !== 'browse') throw new Error(`not a browse request: ${JSON.stringify(q)}`);
  return r;
}

function syncReq(q: Record<string, string>): SyncRequest {
  const r = parseEventsQuery(q);
  if (r instanceof AppError || r.mode !== 'sync') throw new Error(`not a sync request: ${JSON.stringify(q)}`);
  return r;
}

function exportReq(q: Record<string, string>): ExportRequest {
  const r = parseExportQuery(q);
  if (r instanceof AppError) throw r;
  return r;
}

/** An export's bytes as one string (the whole file decoded once, as a client would). */
async function collect(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

/** Minimal RFC 4180 reader for checking the export (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) throw new Error('CSV does not end with CRLF');
  return rows;
}

/** `options`: the store's placement (a cluster through the test proxy) and its rollup lead; the settle margin is the suite's. */
export function analyticsStoreContract(name: string, openTransport: () => Promise<ClickHouseTransport>, options: AnalyticsStoreOptions = {}): void {
  describe(`AnalyticsStore contract on ${name}`, () => {
    let transport: ClickHouseTransport;
    let store: AnalyticsStore;
    const enricher = new HitEnricher();

    beforeAll(async () => {
      transport = await openTransport();
      store = new AnalyticsStore(transport, { ...options, syncSettleMillis: SETTLE_MS });
      await store.ensureSchema();
      await store.ensureSchema(); // idempotent
      await store.rollupBackfill; // aggregates read the rollup from here on
      expect(store.rollupReady).toBe(true);
    });

    afterAll(async () => {
      await store?.close();
    });

    it('creates the events table with its merge settings, idempotently', async () => {
      expect(await store.ensureSchema()).toEqual({ tuned: true });
      const [table] = await transport.queryRows<{ engine_full: string }>(
        `SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {name:String}`,
        { name: EVENTS_TABLE },
      );
      for (const [k, v] of Object.entries(MERGE_SETTINGS)) expect(table?.engine_full).toContain(`${k} = ${v}`);
    });

    async function syncAll(orgId: string, since: string, afterEventId: string | null, limit: number): Promise<{ events: AnalyticsEvent[]; last: EventPage }> {
      const events: AnalyticsEvent[] = [];
      let q: Record<string, string> = { since, limit: String(limit) };
      if (afterEventId) q.afterEventId = afterEventId;
      for (let guard = 0; guard < 10_000; guard++) {
        const page = await store.sync(orgId, syncReq(q));
        events.push(...page.data);
        expect(page.nextCursor).toBeNull();
        if (!page.hasMore) return { events, last: page };
        q = { since: page.nextSince ?? '', afterEventId: page.afterEventId ?? '', limit: String(limit) };
      }
      throw new Error('sync did not end');
    }

    it('stores an enriched hit and browses it back as the spec event object', async () => {
      const orgId = newOrgId();
      const hit = rawHit({
        orgId,
        clickedAtMicros: Number(isoMicros('2026-03-10T12:34:56.123456Z')),
        referrer: 'https://www.google.com/search?q=short+links',
        userAgent: CHROME_WINDOWS_UA,
        ip: '8.8.8.8',
        clickSource: 'QR_CODE',
        utmSource: 'newsletter',
        utmMedium: 'email',
        utmCampaign: 'spring',
      });
      const [record] = await enricher.enrich([hit]);
      await store.insert([record!], randomUUID());
      const page = await store.browse(orgId, 'UTC', browseReq({ from: '2026-03-10', to: '2026-03-10' }));
      expect(page.hasMore).toBe(false);
      expect(page.nextSince).toBeNull();
      expect(page.afterEventId).toBeNull();
      expect(page.nextCursor).toEqual(expect.any(String));
      expect(page.data).toHaveLength(1);
      const event = page.data[0];
      expect(Object.keys(event ?? {})).toEqual([...EVENT_OBJECT_FIELDS]);
      expect(event).toEqual({
        eventId: record!.eventId,
        schemaVersion: 1,
        createdAt: '2026-03-10T12:34:56.123456Z',
        shortCode: 'summer-sale',
        shortUrlId: hit.link.id,
        eventType: 'CLICK',
        clickSource: 'QR_CODE',
        referrer: 'https://www.google.com/search?q=short+links',
        referrerDomain: 'www.google.com',
        country: 'United States',
        countryCode: 'US',
        city: expect.any(String),
        region: expect.any(String),
        browserName: 'Chrome',
        browserVersion: '124.0.0.0',
        osName: 'Windows',
        osVersion: '10',
        deviceType: 'DESKTOP',
        deviceBrand: null,
        deviceModel: null,
        utmSource: 'newsletter',
        utmMedium: 'email',
        utmCampaign: 'spring',
        botCategory: null,
      });
    });

    it('keeps nulls and prints createdAt like Java Instant (millis, whole seconds)', async () => {
      const orgId = newOrgId();
      const hits = [
        rawHit({ orgId, clickedAtMicros: Number(isoMicros('2026-03-10T10:00:00Z')), userAgent: IPHONE_UA }),
        rawHit({ orgId, clickedAtMicros: Number(isoMicros('2026-03-10T10:00:00.120Z')), eventType: 'METADATA_PREVIEW', clickSource: 'UNKNOWN' }),
      ];
      await store.insert(await enricher.enrich(hits), randomUUID());
      const page = await store.browse(orgId, 'UTC', browseReq({ from: '2026-03-10', to: '2026-03-10' }));
      expect(page.data.map((e) => e.createdAt)).toEqual(['2026-03-10T10:00:00Z', '2026-03-10T10:00:00.120Z']);
      expect(page.data[0]).toMatchObject({
        deviceType: 'MOBILE',
        osName: 'iOS',
        deviceBrand: 'Apple',
        deviceModel: 'iPhone',
        country: null,
        referrer: null,
        referrerDomain: null,
      });
      expect(page.data[1]).toMatchObject({ eventType: 'METADATA_PREVIEW', clickSource: 'UNKNOWN', browserName: null, deviceType: null });
    });

    it('pages through a range: every event exactly once, ascending by (createdAt, eventId)', async () => {
      const orgId = newOrgId();
      const start = isoMicros('2026-02-01T00:00:00Z');
      // 5 events share each timestamp, so ties are broken by eventId across page boundaries.
      const records = Array.from({ length: 60 }, (_, i) =>
        eventRecord({ orgId, createdAtMicros: (start + BigInt(Math.floor(i / 5)) * 3_600_000_000n).toString() }),
      );
      await store.insert(records.slice(0, 30), randomUUID());
      await store.insert(records.slice(30), randomUUID());
      const seen: AnalyticsEvent[] = [];
      let q: Record<string, string> = { from: '2026-02-01', to: '2026-02-03', limit: '7' };
      let pages = 0;
      for (;;) {
        const page = await store.browse(orgId, 'UTC', browseReq(q));
        pages++;
        seen.push(...page.data);
        expect(page.data.length).toBeLessThanOrEqual(7);
        if (!page.hasMore) break;
        q = { ...q, cursor: page.nextCursor ?? '' };
      }
      expect(pages).toBe(9);
      expect(seen.map((e) => e.eventId).sort()).toEqual(records.map((r) => r.eventId).sort());
      expect(new Set(seen.map((e) => e.eventId)).size).toBe(60);
      const keys = seen.map((e) => `${e.createdAt}|${e.eventId}`);
      for (let i = 1; i < seen.length; i++) {
        const [a, b] = [seen[i - 1], seen[i]];
        if (!a || !b) throw new Error('gap');
        expect(isoMicros(a.createdAt) < isoMicros(b.createdAt) || (a.createdAt === b.createdAt && keys[i - 1] !== keys[i])).toBe(true);
      }
      // Tie order is the store's own and stable: a second pass gives the same sequence.
      const again = await store.browse(orgId, 'UTC', browseReq({ from: '2026-02-01', to: '2026-02-03', limit: '100' }));
      expect(again.data.map((e) => e.eventId)).toEqual(seen.map((e) => e.eventId));
    });

    it('cuts days at local midnight of the organisation time zone', async () => {
      const orgId = newOrgId();
      const times = [
        '2026-03-10T22:59:59.999999Z', // 23:59:59.999999 in Berlin (CET, +01:00), still 10 March
        '2026-03-10T23:00:00Z', // 00:00 in Berlin, 11 March
        '2026-03-11T23:30:00Z', // 00:30 in Berlin, 12 March
        '2026-03-28T23:00:00Z', // 00:00 Berlin 29 March (DST starts 02:00 → 03:00)
        '2026-03-29T21:59:59Z', // 23:59:59 Berlin (CEST, +02:00), still 29 March
        '2026-03-29T22:00:00Z', // 00:00 Berlin 30 March
      ];
      const recs = times.map((t) => eventRecord({ orgId, createdAtMicros: isoMicros(t).toString() }));
      await store.insert(recs, randomUUID());
      const createdIn = async (tz: string, from: string, to: string): Promise<string[]> =>
        (await store.browse(orgId, tz, browseReq({ from, to }))).data.map((e) => e.createdAt);
      expect(await createdIn('Europe/Berlin', '2026-03-10', '2026-03-10')).toEqual(['2026-03-10T22:59:59.999999Z']);
      expect(await createdIn('Europe/Berlin', '2026-03-11', '2026-03-11')).toEqual(['2026-03-10T23:00:00Z']);
      expect(await createdIn('UTC', '2026-03-10', '2026-03-10')).toEqual(['2026-03-10T22:59:59.999999Z', '2026-03-10T23:00:00Z']);
      expect(await createdIn('UTC', '2026-03-11', '2026-03-11')).toEqual(['2026-03-11T23:30:00Z']);
      expect(await createdIn('Europe/Berlin', '2026-03-29', '2026-03-29')).toEqual(['2026-03-28T23:00:00Z', '2026-03-29T21:59:59Z']);
      expect(await createdIn('America/New_York', '2026-03-10', '2026-03-11')).toEqual([
        '2026-03-10T22:59:59.999999Z',
        '2026-03-10T23:00:00Z',
        '2026-03-11T23:30:00Z',
      ]);
    });

    it('filters by shortCode, clickSource and eventType, combined', async () => {
      const orgId = newOrgId();
      const at = isoMicros('2026-04-01T12:00:00Z');
      const recs = [
        eventRecord({ orgId, createdAtMicros: at.toString(), shortCode: 'code-aaaa', clickSource: 'QR_CODE', eventType: 'CLICK' }),
        eventRecord({ orgId, createdAtMicros: (at + 1n).toString(), shortCode: 'code-aaaa', clickSource: 'DIRECT', eventType: 'CLICK' }),
        eventRecord({ orgId, createdAtMicros: (at + 2n).toString(), shortCode: 'code-bbbb', clickSource: 'QR_CODE', eventType: 'METADATA_PREVIEW' }),
      ];
      await store.insert(recs, randomUUID());
      const count = async (extra: Record<string, string>): Promise<number> =>
        (await store.browse(orgId, 'UTC', browseReq({ from: '2026-04-01', to: '2026-04-01', ...extra }))).data.length;
      expect(await count({})).toBe(3);
      expect(await count({ shortCode: 'code-aaaa' })).toBe(2);
      expect(await count({ clickSource: 'qr_code' })).toBe(2);
      expect(await count({ eventType: 'METADATA_PREVIEW' })).toBe(1);
      expect(await count({ shortCode: 'code-aaaa', clickSource: 'QR_CODE' })).toBe(1);
      expect(await count({ shortCode: 'nope-nope' })).toBe(0);
      await sleep(SETTLE_MS * 2);
      const synced = await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z', clickSource: 'QR_CODE', eventType: 'CLICK' }));
      expect(synced.data.map((e) => e.eventId)).toEqual([recs[0]?.eventId]);
      const exported = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-04-01', to: '2026-04-01', shortCode: 'code-bbbb' })));
      expect(
        exported
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as AnalyticsEvent).eventId),
      ).toEqual([recs[2]?.eventId]);
    });

    it('bots=include|exclude|only: include = exclude + only on browse, sync, export and aggregates; groupBy=botCategory', async () => {
      const orgId = newOrgId();
      const at = isoMicros('2026-04-03T12:00:00Z');
      const bots = [null, 'SEARCH_CRAWLER', null, 'MAIL_SCANNER', 'HTTP_LIBRARY', null, null] as const;
      const recs = bots.map((botCategory, i) =>
        eventRecord({ orgId, createdAtMicros: (at + BigInt(i)).toString(), shortCode: i % 2 ? 'code-aaaa' : 'code-bbbb', botCategory }),
      );
      await store.insert(recs, randomUUID());
      await sleep(SETTLE_MS * 2);
      const day = { from: '2026-04-03', to: '2026-04-03' };
      const idsOf = (events: readonly { eventId: string }[]): string[] => events.map((e) => e.eventId).sort();
      const people = idsOf(recs.filter((r) => r.botCategory === null));
      const robots = idsOf(recs.filter((r) => r.botCategory !== null));
      const reads = {
        browse: async (b: Record<string, string>) => idsOf((await store.browse(orgId, 'UTC', browseReq({ ...day, ...b }))).data),
        sync: async (b: Record<string, string>) => idsOf((await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z', ...b }))).data),
        export: async (b: Record<string, string>) =>
          idsOf(
            (await collect(store.exportEvents(orgId, 'UTC', exportReq({ ...day, ...b }))))
              .trim()
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => JSON.parse(l) as AnalyticsEvent),
          ),
      };
      for (const [name, read] of Object.entries(reads)) {
        expect(await read({}), name).toEqual(idsOf(recs));
        expect(await read({ bots: 'include' }), name).toEqual(idsOf(recs));
        expect(await read({ bots: 'exclude' }), name).toEqual(people);
        expect(await read({ bots: 'ONLY' }), name).toEqual(robots);
      }
      const aggregate = async (q: Record<string, string>) => {
        const req = parseAggregatesQuery({ ...day, ...q });
        if (req instanceof AppError) throw req;
        return store.aggregate(orgId, 'UTC', req);
      };
      const categories = await aggregate({ groupBy: 'botCategory' });
      expect(new Map(categories.data.map((d) => [d.key, d.events]))).toEqual(
        new Map<string | null, number>([
          [null, 4],
          ['HTTP_LIBRARY', 1],
          ['MAIL_SCANNER', 1],
          ['SEARCH_CRAWLER', 1],
        ]),
      );
      expect((await aggregate({ groupBy: 'time', botCategory: 'mail_scanner' })).total).toBe(1);
      for (const groupBy of ['time', 'shortCode', 'botCategory']) {
        const [all, excluded, only] = await Promise.all(['include', 'exclude', 'only'].map((bots) => aggregate({ groupBy, bots })));
        expect([all?.total, excluded?.total, only?.total], groupBy).toEqual([7, 4, 3]);
        const byKey = (r: typeof all) => new Map(r?.data.map((d) => [d.key, d.events]));
        for (const [key, n] of byKey(all)) expect(n, `${groupBy} ${key}`).toBe((byKey(excluded).get(key) ?? 0) + (byKey(only).get(key) ?? 0));
      }
    });

    it('never shows another organisation’s events', async () => {
      const [a, b] = [newOrgId(), newOrgId()];
      const at = isoMicros('2026-04-02T12:00:00Z');
      await store.insert([eventRecord({ orgId: a, createdAtMicros: at.toString() }), eventRecord({ orgId: b, createdAtMicros: at.toString() })], randomUUID());
      const page = await store.browse(a, 'UTC', browseReq({ from: '2026-04-02', to: '2026-04-02' }));
      expect(page.data).toHaveLength(1);
      expect(await store.countEvents(b)).toBe(1);
    });

    it('sync: a consumer passing nextSince + afterEventId sees every event exactly once, late events included', async () => {
      const orgId = newOrgId();
      const now = BigInt(Date.now()) * 1000n;
      const first = eventRecords(orgId, 25, now - 60_000_000n, 1000n);
      await store.insert(first.slice(0, 10), randomUUID());
      await store.insert(first.slice(10), randomUUID());
      await sleep(SETTLE_MS * 2);
      const round1 = await syncAll(orgId, '2000-01-01T00:00:00Z', null, 4);
      expect(round1.events.map((e) => e.eventId).sort()).toEqual(first.map((r) => r.eventId).sort());
      expect(round1.last.nextSince).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z$/);
      expect(round1.last.afterEventId).toEqual(expect.any(String));

      // Nothing new: the position is echoed, no event is repeated.
      const idle = await store.sync(orgId, syncReq({ since: round1.last.nextSince ?? '', afterEventId: round1.last.afterEventId ?? '' }));
      expect(idle.data).toEqual([]);
      expect(idle.hasMore).toBe(false);
      expect([idle.nextSince, idle.afterEventId]).toEqual([round1.last.nextSince, round1.last.afterEventId]);

      // Late arrivals: clicks that happened BEFORE everything already synced (a backfill after an
      // outage, a delayed batch) and one fresh click, inserted after the consumer's last call.
      const late = eventRecords(orgId, 12, now - 3_600_000_000n * 48n, 7n);
      const fresh = eventRecords(orgId, 3, now, 1n);
      await store.insert(late, randomUUID());
      await store.insert(fresh, randomUUID());
      await sleep(SETTLE_MS * 2);
      const round2 = await syncAll(orgId, round1.last.nextSince ?? '', round1.last.afterEventId, 5);
      expect(round2.events.map((e) => e.eventId).sort()).toEqual([...late, ...fresh].map((r) => r.eventId).sort());
      const all = [...round1.events, ...round2.events].map((e) => e.eventId);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toHaveLength(40);
    });

    it('feed: pages in sync order with the bytes JSON.stringify gives the synced events; a range read back later is the same events', async () => {
      const orgId = newOrgId();
      const now = BigInt(Date.now()) * 1000n;
      const tricky = eventRecord({
        orgId,
        createdAtMicros: (now - 5_000_000n).toString(),
        referrer: 'ctl \u001b quote " sep \u2028 😀',
        utmCampaign: '</script>',
      });
      await store.insert([...eventRecords(orgId, 6, now - 60_000_000n, 1000n), tricky], randomUUID());
      await store.insert(eventRecords(orgId, 5, now - 3_600_000_000n, 7n), randomUUID()); // older clicks, ingested later
      await sleep(SETTLE_MS * 2);
      const synced = (await syncAll(orgId, '2000-01-01T00:00:00Z', null, 100)).events;
      expect(synced).toHaveLength(12);
      const pages: FeedPage[] = [];
      let after = positionAt(0n);
      for (let guard = 0; guard < 10; guard++) {
        const page = await store.feedPage(orgId, { after, limit: 5 });
        if (page.last === null) break;
        pages.push(page);
        after = page.last;
      }
      expect(pages.map((p) => p.events.length)).toEqual([5, 5, 2]);
      expect(pages.flatMap((p) => p.events)).toEqual(synced.map((e) => JSON.stringify(e)));
      expect(pages.at(-1)?.last?.eventId).toBe(synced.at(-1)?.eventId);
      // The second page's range, read again after more events arrived, holds exactly its events.
      await store.insert(eventRecords(orgId, 4, now - 7_200_000_000n, 3n), randomUUID());
      await sleep(SETTLE_MS * 2);
      const first = pages[0]?.last as FeedPosition;
      const again = await store.feedPage(orgId, { after: first, until: pages[1]?.last as FeedPosition, limit: 1000 });
      expect(again).toEqual(pages[1]);
      expect((await store.feedPage(orgId, { after: pages[2]?.last as FeedPosition, limit: 1000 })).events).toHaveLength(4);
      expect((await store.feedPage(newOrgId(), { after: positionAt(0n), limit: 10 })).events).toEqual([]);
    });

    it('sync: returns only settled rows, so an event still settling is delivered later, not skipped', async () => {
      const orgId = newOrgId();
      const patient = new AnalyticsStore(transport, { ...options, syncSettleMillis: 1500 });
      const start = await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }));
      expect(start.data).toEqual([]);
      const recs = eventRecords(orgId, 3, BigInt(Date.now()) * 1000n);
      await store.insert(recs, randomUUID());
      expect((await patient.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }))).data).toEqual([]);
      await sleep(1600);
      expect((await patient.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z' }))).data).toHaveLength(3);
    });

    it('sync: since without afterEventId is inclusive, and accepts offsets and zone-less UTC', async () => {
      const orgId = newOrgId();
      await store.insert(eventRecords(orgId, 2, BigInt(Date.now()) * 1000n), randomUUID());
      await sleep(SETTLE_MS * 2);
      const page = await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00Z', limit: '1' }));
      expect(page.hasMore).toBe(true);
      const again = await store.sync(orgId, syncReq({ since: page.nextSince ?? '' }));
      expect(again.data.map((e) => e.eventId)).toContain(page.afterEventId);
      expect(again.data).toHaveLength(2); // one batch: both share one ingestion stamp
      const zoneless = await store.sync(orgId, syncReq({ since: '2000-01-01T00:00:00' }));
      const offset = await store.sync(orgId, syncReq({ since: '2000-01-01T02:00:00+02:00' }));
      expect(zoneless.data).toHaveLength(2);
      expect(offset.data).toHaveLength(2);
      const future = await store.sync(orgId, syncReq({ since: '2299-01-01T00:00:00Z' }));
      expect(future.data).toEqual([]);
      expect(future.nextSince).toBe('2299-01-01T00:00:00Z');
    });

    it('a batch inserted twice (a retry) is invisible to browse, sync, export and counts', async () => {
      const orgId = newOrgId();
      const batch = eventRecords(orgId, 20, isoMicros('2026-05-05T08:00:00Z'), 1000n);
      const token = randomUUID();
      await store.insert(batch, token);
      await sleep(SETTLE_MS * 2);
      const synced = await syncAll(orgId, '2000-01-01T00:00:00Z', null, 100);
      expect(synced.events).toHaveLength(20);
      await store.insert(batch, token); // same token: dropped at insert
      expect(await store.countPhysicalRows(orgId)).toBe(20);
      await store.insert(batch, randomUUID()); // token lost (e.g. dedup window passed): stored again…
      expect(await store.countPhysicalRows(orgId)).toBe(40);
      expect(await store.countEvents(orgId)).toBe(20); // …but never visible twice
      const page = await store.browse(orgId, 'UTC', browseReq({ from: '2026-05-05', to: '2026-05-05', limit: '5000' }));
      expect(page.data).toHaveLength(20);
      await sleep(SETTLE_MS * 2);
      const after = await syncAll(orgId, synced.last.nextSince ?? '', synced.last.afterEventId, 100);
      expect(after.events).toEqual([]); // the first-ingested copy keeps its place
      // The feed, which reads without FINAL, leaves the later copies out the same way.
      const feedFrom = async (from: FeedPosition): Promise<string[]> => {
        const events: string[] = [];
        for (let at = from, guard = 0; guard < 20; guard++) {
          const p = await store.feedPage(orgId, { after: at, limit: 7 });
          if (p.last === null) break;
          events.push(...p.events);
          at = p.last;
        }
        return events;
      };
      expect(await feedFrom(positionAt(0n))).toEqual(synced.events.map((e) => JSON.stringify(e)));
      const syncedAt = { ingestedAtMicros: BigInt(isoMicros(synced.last.nextSince ?? '')), eventId: synced.last.afterEventId ?? '' };
      expect(await feedFrom(syncedAt)).toEqual([]);
      const ndjson = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-05-05', to: '2026-05-05' })));
      expect(ndjson.trim().split('\n')).toHaveLength(20);
      // A merge collapses the copies the same way FINAL does: the first-ingested copy stays.
      await transport.exec(`OPTIMIZE TABLE ${EVENTS_TABLE} PARTITION 202605 FINAL`);
      expect(await store.countPhysicalRows(orgId)).toBe(20);
      expect((await syncAll(orgId, synced.last.nextSince ?? '', synced.last.afterEventId, 100)).events).toEqual([]);
      expect((await syncAll(orgId, '2000-01-01T00:00:00Z', null, 100)).last).toMatchObject({
        nextSince: synced.last.nextSince,
        afterEventId: synced.last.afterEventId,
      });
    });

    it('exports NDJSON: one event object per line, browse order, nulls kept', async () => {
      const orgId = newOrgId();
      const recs = eventRecords(orgId, 30, isoMicros('2026-06-01T00:00:00Z'), 60_000_000n, {
        referrer: 'https://example.com/a/b',
        referrerDomain: 'example.com',
      });
      await store.insert(recs, randomUUID());
      const text = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-06-01', to: '2026-06-01' })));
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.slice(0, -1).split('\n');
      expect(lines).toHaveLength(30);
      const events = lines.map((l) => JSON.parse(l) as AnalyticsEvent);
      expect(events.map((e) => e.eventId)).toEqual(recs.map((r) => r.eventId));
      expect(Object.keys(events[0] ?? {})).toEqual([...EVENT_OBJECT_FIELDS]);
      expect(events[0]).toMatchObject({ referrer: 'https://example.com/a/b', country: null, schemaVersion: 1, createdAt: '2026-06-01T00:00:00Z' });
      const browsed = await store.browse(orgId, 'UTC', browseReq({ from: '2026-06-01', to: '2026-06-01' }));
      expect(events).toEqual(browsed.data);
    });

    it('exports CSV: header in table order, RFC 4180 quoting, null as an empty field', async () => {
      const orgId = newOrgId();
      const tricky = eventRecord({
        orgId,
        createdAtMicros: isoMicros('2026-06-02T10:00:00.000001Z').toString(),
        referrer: 'https://example.com/?q=a,b&x="y"',
        referrerDomain: 'example.com',
        utmCampaign: 'line1\r\nline2',
        utmSource: 'plain',
        city: 'Zürich',
      });
      const plain = eventRecord({ orgId, createdAtMicros: isoMicros('2026-06-02T11:00:00Z').toString() });
      await store.insert([plain, tricky], randomUUID());
      const text = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-06-02', to: '2026-06-02', format: 'csv' })));
      expect(text.startsWith(`${EVENT_OBJECT_FIELDS.join(',')}\r\n`)).toBe(true);
      expect(text).toContain('"https://example.com/?q=a,b&x=""y"""');
      const rows = parseCsv(text);
      expect(rows[0]).toEqual([...EVENT_OBJECT_FIELDS]);
      expect(rows).toHaveLength(3);
      const col = (f: (typeof EVENT_OBJECT_FIELDS)[number]): number => EVENT_OBJECT_FIELDS.indexOf(f);
      const first = rows[1] ?? [];
      expect(first[col('eventId')]).toBe(tricky.eventId);
      expect(first[col('createdAt')]).toBe('2026-06-02T10:00:00.000001Z');
      expect(first[col('schemaVersion')]).toBe('1');
      expect(first[col('referrer')]).toBe('https://example.com/?q=a,b&x="y"');
      expect(first[col('utmCampaign')]).toBe('line1\r\nline2');
      expect(first[col('city')]).toBe('Zürich');
      expect(first[col('country')]).toBe('');
      expect(rows[2]?.[col('referrer')]).toBe('');
      const empty = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-01-01', to: '2026-01-01', format: 'csv' })));
      expect(empty).toBe(`${EVENT_OBJECT_FIELDS.join(',')}\r\n`);
    });

    it("neutralises spreadsheet formulas in CSV text cells (leading '), and keeps NDJSON raw", async () => {
      const orgId = newOrgId();
      const at = (s: string): string => isoMicros(`2026-06-03T${s}Z`).toString();
      const hyperlink = '=HYPERLINK("http://x","y")';
      // A click as the redirector records it: Referer and User-Agent straight from the request.
      const hits = ['@SUM(1+1)', '+cmd', '-2+3', '\tcalc', '\rcalc'].map((userAgent, i) =>
        rawHit({
          orgId,
          clickedAtMicros: Number(at(`10:00:0${i}`)),
          referrer: hyperlink,
          userAgent,
          utmSource: userAgent,
          utmMedium: '-1',
          utmCampaign: 'plain',
        }),
      );
      const enriched = await enricher.enrich(hits);
      await store.insert(enriched, randomUUID());
      const safe = eventRecord({ orgId, createdAtMicros: at('11:00:00'), shortCode: '-dash-code', city: '@home', region: '=1+1', referrer: "it's = fine" });
      await store.insert([safe], randomUUID());

      const csv = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-06-03', to: '2026-06-03', format: 'csv' })));
      const rows = parseCsv(csv);
      const col = (f: (typeof EVENT_OBJECT_FIELDS)[number]): number => EVENT_OBJECT_FIELDS.indexOf(f);
      expect(rows).toHaveLength(7);
      expect(rows.slice(1, 6).map((r) => [r[col('referrer')], r[col('utmSource')], r[col('utmMedium')], r[col('utmCampaign')]])).toEqual([
        [`'${hyperlink}`, "'@SUM(1+1)", "'-1", 'plain'],
        [`'${hyperlink}`, "'+cmd", "'-1", 'plain'],
        [`'${hyperlink}`, "'-2+3", "'-1", 'plain'],
        [`'${hyperlink}`, "'\tcalc", "'-1", 'plain'],
        [`'${hyperlink}`, "'\rcalc", "'-1", 'plain'],
      ]);
      // Only text cells change: the number, the UUID and the instant are as before.
      expect(rows[1]?.[col('schemaVersion')]).toBe('1');
      expect(rows[1]?.[col('eventId')]).toBe(enriched[0]?.eventId);
      expect(rows[1]?.[col('createdAt')]).toBe('2026-06-03T10:00:00Z');
      const last = rows[6] ?? [];
      expect([last[col('shortCode')], last[col('city')], last[col('region')], last[col('referrer')], last[col('country')]]).toEqual([
        "'-dash-code",
        "'@home",
        "'=1+1",
        "it's = fine",
        '',
      ]);
      // The formula cell is quoted as RFC 4180 says, after the apostrophe.
      expect(csv).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
      // Every cell of the export: none starts with a trigger any more.
      for (const row of rows.slice(1)) for (const cell of row) expect(/^[=+\-@\t\r]/.test(cell)).toBe(false);

      const ndjson = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-06-03', to: '2026-06-03' })));
      const events = ndjson
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as AnalyticsEvent);
      expect(events.map((e) => [e.referrer, e.utmSource, e.utmMedium])).toEqual([
        [hyperlink, '@SUM(1+1)', '-1'],
        [hyperlink, '+cmd', '-1'],
        [hyperlink, '-2+3', '-1'],
        [hyperlink, '\tcalc', '-1'],
        [hyperlink, '\rcalc', '-1'],
        ["it's = fine", null, null],
      ]);
      expect(events[5]).toMatchObject({ shortCode: '-dash-code', city: '@home', region: '=1+1' });
    });

    it('exports exactly the bytes JSON.stringify and RFC 4180 give for the browsed events, whatever the text', async () => {
      const orgId = newOrgId();
      const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('');
      const texts = [
        `ctl:${controls}:end`,
        'quote " comma , cr \r lf \n crlf \r\n tab \t',
        'backslash \\ then \\u001B as text, \\\u001B, slash / and </script>',
        'separators \u2028 and \u2029, del \u007f, nel \u0085, bom \ufeff',
        'Zürich, São Paulo, 東京, emoji 😀👍🏽, replacement \ufffd',
        '"',
        ',',
        '',
        'x'.repeat(3000),
      ];
      const times = [
        '2026-09-01T00:00:00Z',
        '2026-09-01T00:00:00.120Z',
        '2026-09-01T00:00:00.000001Z',
        '2026-09-01T00:00:01.123456Z',
        '2026-09-01T00:00:02.100Z',
        '2026-09-01T23:59:58.999999Z',
      ];
      const recs = texts.flatMap((text, i) => [
        eventRecord({
          orgId,
          createdAtMicros: isoMicros(times[i % times.length] ?? '').toString(),
          referrer: text,
          utmCampaign: text,
          city: text.slice(0, 40),
          deviceModel: null,
        }),
        eventRecord({
          orgId,
          createdAtMicros: (isoMicros(times[(i + 3) % times.length] ?? '') + 7n).toString(),
          shortCode: `c,${i}`,
          utmSource: text.slice(-20),
          country: text === '' ? '' : null,
        }),
      ]);
      await store.insert(recs, randomUUID());
      const events = (await store.browse(orgId, 'UTC', browseReq({ from: '2026-09-01', to: '2026-09-01', limit: '5000' }))).data;
      expect(events).toHaveLength(recs.length);
      const csvField = (v: string | number | null): string => {
        if (v === null) return '';
        const t = typeof v === 'string' ? neutraliseFormula(v) : String(v);
        return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
      };
      const ndjson = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-09-01', to: '2026-09-01' })));
      expect(ndjson).toBe(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      const csv = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-09-01', to: '2026-09-01', format: 'csv' })));
      expect(csv).toBe(`${EVENT_OBJECT_FIELDS.join(',')}\r\n${events.map((e) => `${EVENT_OBJECT_FIELDS.map((f) => csvField(e[f])).join(',')}\r\n`).join('')}`);
    });

    it('streams a large export in bounded chunks, and stops cleanly when the reader leaves early', async () => {
      const orgId = newOrgId();
      const n = 20_000;
      const start = isoMicros('2026-07-01T00:00:00Z');
      for (let i = 0; i < n; i += 5000) await store.insert(eventRecords(orgId, 5000, start + BigInt(i) * 1_000_000n, 1_000_000n), randomUUID());
      let lines = 0;
      let chunks = 0;
      let biggest = 0;
      for await (const chunk of store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-07-01', to: '2026-07-01' }))) {
        chunks++;
        biggest = Math.max(biggest, chunk.length);
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
      }
      expect(lines).toBe(n);
      expect(chunks).toBeGreaterThanOrEqual(n / 1000);
      expect(biggest).toBeLessThan(1000 * 1024);
      let taken = 0;
      for await (const chunk of store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-07-01', to: '2026-07-01', format: 'csv' }))) {
        taken += chunk.length;
        if (taken > 10_000) break;
      }
      // The transport is still usable after an abandoned stream, for queries and new streams.
      expect(await store.countEvents(orgId)).toBe(n);
      const all = await collect(store.exportEvents(orgId, 'UTC', exportReq({ from: '2026-07-01', to: '2026-07-01', format: 'csv' })));
      expect(all.split('\r\n')).toHaveLength(n + 2);
    });

    it('runs concurrent exports and queries side by side', async () => {
      const orgId = newOrgId();
      await store.insert(eventRecords(orgId, 3000, isoMicros('2026-08-01T00:00:00Z'), 1_000_000n), randomUUID());
      const req = exportReq({ from: '2026-08-01', to: '2026-08-01' });
      const results = await Promise.all([
        collect(store.exportEvents(orgId, 'UTC', req)),
        collect(store.exportEvents(orgId, 'UTC', req)),
        collect(store.exportEvents(orgId, 'UTC', req)),
        store.countEvents(orgId),
      ]);
      expect(results.slice(0, 3).map((t) => (typeof t === 'string' ? t.split('\n').length - 1 : -1))).toEqual([3000, 3000, 3000]);
      expect(results[3]).toBe(3000);
    });

    it("sweeps an organisation's events past its own retention: raw reads lose exactly them, aggregates keep counting them, others are untouched", async () => {
      const orgId = newOrgId();
      const other = newOrgId();
      const minute = 60_000_000n;
      const old = eventRecords(orgId, 30, isoMicros('2026-01-10T10:00:00Z'), minute, { shortCode: 'kept-aside' });
      const recent = eventRecords(orgId, 20, isoMicros('2026-03-10T10:00:00Z'), minute, { shortCode: 'kept-aside' });
      const theirs = eventRecords(other, 10, isoMicros('2026-01-10T10:00:00Z'), minute);
      await store.insert([...old, ...recent], randomUUID());
      await store.insert(theirs, randomUUID());
      await sleep(SETTLE_MS * 2);
      const span = { from: '2026-01-01', to: '2026-03-31' };
      const aggregate = async (q: Record<string, string>) => {
        const req = parseAggregatesQuery({ ...span, ...q });
        if (req instanceof AppError) throw req;
        return store.aggregatePlanned(orgId, 'UTC', req);
      };
      const series = await aggregate({ groupBy: 'time', interval: 'day' });
      const links = await aggregate({ groupBy: 'shortCode' });
      expect(series.plan.source).toBe('rollup');
      expect(links.response.data).toEqual([{ key: 'kept-aside', events: 50 }]);

      // 30 days before 2026-03-01: January's events are past it, March's are not.
      const policy = { eventsDays: null, orgDays: new Map([[orgId, 30]]), rollupDays: null };
      const report = await sweepRetention(store, policy, Date.UTC(2026, 2, 1));
      expect(report).toMatchObject({ skipped: null, events: { removed: 30, partitionsDropped: [], cutoff: null, organisationsWithOwnRetention: 1 } });

      const ids = (events: readonly { eventId: string }[]) => events.map((e) => e.eventId).sort();
      expect((await store.browse(orgId, 'UTC', browseReq({ from: '2026-01-01', to: '2026-01-31' }))).data).toEqual([]);
      expect(ids((await store.browse(orgId, 'UTC', browseReq({ ...span, limit: '500' }))).data)).toEqual(ids(recent));
      expect(ids((await syncAll(orgId, '2000-01-01T00:00:00Z', null, 100)).events)).toEqual(ids(recent));
      const exported = await collect(store.exportEvents(orgId, 'UTC', exportReq({ ...span, format: 'json' })));
      expect(
        exported
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as AnalyticsEvent).eventId)
          .sort(),
      ).toEqual(ids(recent));
      expect(await aggregate({ groupBy: 'time', interval: 'day' })).toEqual(series);
      expect((await aggregate({ groupBy: 'shortCode' })).response).toEqual(links.response);
      expect(ids((await store.browse(other, 'UTC', browseReq({ from: '2026-01-01', to: '2026-01-31' }))).data)).toEqual(ids(theirs));

      const again = await sweepRetention(store, policy, Date.UTC(2026, 2, 1));
      expect(again.events.removed).toBe(0);
    });

    aggregatesCases(() => store);

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
