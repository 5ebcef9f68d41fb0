// Invariant: on every transport, aggregates are exactly Browse's counts: `total` and the sum of
// a time series equal the number of events Browse returns for the same range and filters (random
// ranges, filters, zones and intervals), each day bucket equals Browse's count for that day, a
// retried batch and a batch stored twice count once, and buckets are zero-filled local starts
// with their offset (DST changes, +05:30, +05:45). Called inside the AnalyticsStore contract.
import { createHash, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { AnalyticsEvent, EventRecord } from '../events/analytics-event.ts';
import { CHROME_WINDOWS_UA, eventRecord, isoMicros, newOrgId, rawHit } from '../events/analytics-fixtures.ts';
import { AGGREGATE_INTERVALS, AGGREGATE_ONLY_DIMENSIONS, DIMENSION_NAMES } from '../model/dimensions.ts';
import { parseAggregatesQuery, parseEventsQuery, type AggregatesRequest, type BrowseRequest } from '../reads/analytics-params.ts';
import type { AggregateResponse } from '../model/aggregate-response.ts';
import { aggregateResponseSchema, visitorsResponseSchema, type VisitorsResponse } from '../model/aggregate-response.ts';
import { HitEnricher } from '../enrichment/enrich-hit.ts';
import { MemoryVisitorSalts } from '../enrichment/memory-visitor-salts.ts';
import { AppError } from '../../errors/app-error.ts';
import { AnalyticsStore } from './analytics-store.ts';
import { mulberry32 } from '../../../test/support/prng.ts';

function aggReq(q: Record<string, string>): AggregatesRequest {
  const r = parseAggregatesQuery(q);
  if (r instanceof AppError) throw r;
  return r;
}

function browseReq(q: Record<string, string>): BrowseRequest {
  const r = parseEventsQuery(q);
  if (r instanceof AppError || r.mode !== 'browse') throw new Error(`not a browse request: ${JSON.stringify(q)}`);
  return r;
}

const BROWSE_FILTERS = ['shortCode', 'clickSource', 'eventType'] as const;
const OTHER_FILTERS = AGGREGATE_ONLY_DIMENSIONS;

export function aggregatesCases(getStore: () => AnalyticsStore): void {
  const sources: (string | null)[] = [];
  /** The store's answer (from the rollup where it can), checked against the same read of raw events. */
  const aggregate = async (orgId: string, tz: string, q: Record<string, string>): Promise<AggregateResponse> => {
    const store = getStore();
    const { plan, response: r } = await store.aggregatePlanned(orgId, tz, aggReq(q));
    sources.push(plan.source);
    expect(aggregateResponseSchema.parse(r)).toEqual(r);
    const raw = new AnalyticsStore(store.transport, { useRollup: false, cluster: store.cluster });
    expect(r, `raw events agree (${plan.source}): ${JSON.stringify(q)}`).toEqual(await raw.aggregate(orgId, tz, aggReq(q)));
    return r;
  };

  /** Every event Browse returns for the range and its filters (paged to the end). */
  const browseAll = async (orgId: string, tz: string, q: Record<string, string>): Promise<AnalyticsEvent[]> => {
    const out: AnalyticsEvent[] = [];
    let query: Record<string, string> = { ...q, limit: '5000' };
    for (;;) {
      const page = await getStore().browse(orgId, tz, browseReq(query));
      out.push(...page.data);
      if (!page.hasMore) return out;
      query = { ...query, cursor: page.nextCursor ?? '' };
    }
  };

  const series = (r: AggregateResponse) => r.data.map((b) => `${b.key} ${b.events}`);

  it('aggregates: total and the sum of the series equal Browse’s count, for random ranges, filters, zones and intervals', async () => {
    const orgId = newOrgId();
    const rnd = mulberry32(20261124);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    // Two windows across Berlin's DST changes (29 March, 25 October 2026).
    const windows = [
      [isoMicros('2026-03-24T00:00:00Z'), isoMicros('2026-04-04T00:00:00Z')],
      [isoMicros('2026-10-20T00:00:00Z'), isoMicros('2026-11-02T00:00:00Z')],
    ] as const;
    const records: EventRecord[] = Array.from({ length: 1200 }, () => {
      const [a, b] = pick(windows);
      const at = a + BigInt(Math.floor(rnd() * Number(b - a)));
      return eventRecord({
        orgId,
        createdAtMicros: at.toString(),
        shortCode: pick(['agg-aaaa', 'agg-bbbb', 'agg-cccc']),
        clickSource: pick(['DIRECT', 'QR_CODE', 'API']),
        eventType: rnd() < 0.85 ? 'CLICK' : 'METADATA_PREVIEW',
        countryCode: pick(['US', 'DE', 'IN', 'NP', null]),
        deviceType: pick(['MOBILE', 'DESKTOP', 'TABLET', null]),
        referrerDomain: pick(['t.co', 'www.google.com', null]),
        browserName: pick(['Chrome', 'Safari', null]),
        osName: pick(['iOS', 'Windows']),
        utmSource: pick(['newsletter', null]),
        utmMedium: pick(['email', null]),
        utmCampaign: pick(['spring', 'autumn', null]),
        botCategory: pick([null, null, null, 'HTTP_LIBRARY', 'MAIL_SCANNER']),
      });
    });
    // In batches; one is retried with its token, one is stored again under a new token (a
    // backfill whose first insert did land): neither may count twice.
    for (let i = 0; i < records.length; i += 200) {
      const batch = records.slice(i, i + 200);
      const token = randomUUID();
      await getStore().insert(batch, token);
      if (i === 200) await getStore().insert(batch, token);
      if (i === 400) await getStore().insert(batch, randomUUID());
    }

    let nonEmpty = 0;
    for (let round = 0; round < 14; round++) {
      const tz = pick(['Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'UTC', 'America/New_York']);
      const [a, b] = pick(windows);
      const dayOf = (micros: bigint) => new Date(Number(micros / 1000n)).toISOString().slice(0, 10);
      const d1 = dayOf(a + BigInt(Math.floor(rnd() * Number(b - a))) - 86_400_000_000n);
      const d2 = dayOf(a + BigInt(Math.floor(rnd() * Number(b - a))) + 86_400_000_000n);
      const [from, to] = d1 <= d2 ? [d1, d2] : [d2, d1];
      const filters: Record<string, string> = {};
      const sample = records[Math.floor(rnd() * records.length)] as EventRecord;
      for (const f of [...BROWSE_FILTERS, ...OTHER_FILTERS]) {
        const v = sample[f];
        if (rnd() < 0.2 && v !== null) filters[f] = f === 'countryCode' ? v.toLowerCase() : v;
      }
      if (rnd() < 0.1) filters.countryCode = 'ZZ'; // unknown: matches nothing
      filters.bots = pick(['include', 'exclude', 'only']);
      const browseFilters = Object.fromEntries(Object.entries(filters).filter(([k]) => [...BROWSE_FILTERS, 'bots'].includes(k)));
      const expected = (await browseAll(orgId, tz, { from, to, eventType: 'CLICK', ...browseFilters })).filter((e) =>
        OTHER_FILTERS.every((f) => filters[f] === undefined || e[f] === (f === 'countryCode' ? filters[f]?.toUpperCase() : filters[f])),
      );
      const what = JSON.stringify({ round, tz, from, to, filters });
      if (expected.length > 0) nonEmpty++;

      const interval = pick(AGGREGATE_INTERVALS);
      const time = await aggregate(orgId, tz, { groupBy: 'time', from, to, interval, ...filters });
      expect(time.total, what).toBe(expected.length);
      expect(
        time.data.reduce((n, x) => n + x.events, 0),
        what,
      ).toBe(expected.length);
      expect(time.data.length, what).toBe(new Set(time.data.map((x) => x.key)).size);

      const dim = pick(DIMENSION_NAMES);
      const top = await aggregate(orgId, tz, { groupBy: dim, from, to, limit: '100', ...filters });
      expect(top.total, what).toBe(expected.length);
      const counts = new Map<string | null, number>();
      for (const e of expected) counts.set(e[dim], (counts.get(e[dim]) ?? 0) + 1);
      const want = [...counts]
        .map(([key, events]) => ({ key, events }))
        .sort((x, y) => y.events - x.events || (x.key === null ? 1 : y.key === null ? -1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      expect(top.data, `${what} ${dim}`).toEqual(want);
      const three = await aggregate(orgId, tz, { groupBy: dim, from, to, limit: '3', ...filters });
      expect(three.data).toEqual(want.slice(0, 3));
      expect(three.total).toBe(expected.length);
    }

    expect(nonEmpty).toBeGreaterThanOrEqual(7);
    // Both read paths were exercised (the rollup where it answers, whatever the bots filter; raw events for two filters).
    expect(sources.filter((x) => x === 'rollup').length).toBeGreaterThanOrEqual(5);
    expect(sources).toContain('raw');

    // Each day bucket is Browse's count for that day.
    const daily = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-10-20', to: '2026-11-01', interval: 'day' });
    expect(daily.data).toHaveLength(13);
    for (const [i, bucket] of daily.data.entries()) {
      const day = `2026-${i < 12 ? `10-${20 + i}` : '11-01'}`;
      expect(bucket.key?.slice(0, 10)).toBe(day);
      expect(bucket.events, day).toBe((await browseAll(orgId, 'Europe/Berlin', { from: day, to: day, eventType: 'CLICK' })).length);
    }
  }, 120_000);

  it('aggregates: exact local days and hours in Europe/Berlin across both DST changes', async () => {
    const orgId = newOrgId();
    const at = (iso: string) => eventRecord({ orgId, createdAtMicros: isoMicros(iso).toString() });
    await getStore().insert(
      [
        '2026-03-28T12:00:00Z', // 28 March
        '2026-03-28T23:00:00Z', // 00:00 CET, 29 March
        '2026-03-29T00:59:59.999999Z', // 01:59:59 CET
        '2026-03-29T01:00:00Z', // 03:00 CEST (02:00 does not exist)
        '2026-03-29T21:59:59Z', // 23:59:59 CEST, still 29 March
        '2026-03-29T22:00:00Z', // 00:00 CEST, 30 March
        '2026-10-24T22:00:00Z', // 00:00 CEST, 25 October
        '2026-10-25T00:30:00Z', // 02:30 CEST
        '2026-10-25T01:30:00Z', // 02:30 CET (the repeated hour)
        '2026-10-25T22:59:59Z', // 23:59:59 CET, still 25 October
        '2026-10-25T23:00:00Z', // 26 October
      ].map(at),
      randomUUID(),
    );
    const spring = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-03-28', to: '2026-03-30' });
    expect(spring.interval).toBe('day');
    expect(series(spring)).toEqual(['2026-03-28T00:00:00+01:00 1', '2026-03-29T00:00:00+01:00 4', '2026-03-30T00:00:00+02:00 1']);
    const springHours = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-03-29', to: '2026-03-29' });
    expect(springHours.interval).toBe('hour');
    expect(springHours.data).toHaveLength(23);
    expect(series(springHours).slice(0, 3)).toEqual(['2026-03-29T00:00:00+01:00 1', '2026-03-29T01:00:00+01:00 1', '2026-03-29T03:00:00+02:00 1']);
    expect(springHours.data.at(-1)).toEqual({ key: '2026-03-29T23:00:00+02:00', events: 1 });
    const autumn = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-10-25', to: '2026-10-26', interval: 'day' });
    expect(series(autumn)).toEqual(['2026-10-25T00:00:00+02:00 4', '2026-10-26T00:00:00+01:00 1']);
    const autumnHours = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-10-25', to: '2026-10-25' });
    expect(autumnHours.data).toHaveLength(25);
    expect(series(autumnHours).slice(0, 5)).toEqual([
      '2026-10-25T00:00:00+02:00 1',
      '2026-10-25T01:00:00+02:00 0',
      '2026-10-25T02:00:00+02:00 1',
      '2026-10-25T02:00:00+01:00 1',
      '2026-10-25T03:00:00+01:00 0',
    ]);
    expect(autumnHours.total).toBe(4);
  });

  it('aggregates: exact days at +05:30 (Asia/Kolkata) and +05:45 (Asia/Kathmandu)', async () => {
    const orgId = newOrgId();
    const at = (iso: string) => eventRecord({ orgId, createdAtMicros: isoMicros(iso).toString() });
    await getStore().insert(
      ['2026-05-01T18:14:59Z', '2026-05-01T18:15:00Z', '2026-05-01T18:29:59.999999Z', '2026-05-01T18:30:00Z', '2026-05-01T18:44:59Z'].map(at),
      randomUUID(),
    );
    const days = { groupBy: 'time', from: '2026-05-01', to: '2026-05-03', interval: 'day' };
    expect(series(await aggregate(orgId, 'Asia/Kathmandu', days))).toEqual([
      '2026-05-01T00:00:00+05:45 1',
      '2026-05-02T00:00:00+05:45 4',
      '2026-05-03T00:00:00+05:45 0',
    ]);
    expect(series(await aggregate(orgId, 'Asia/Kolkata', days))).toEqual([
      '2026-05-01T00:00:00+05:30 3',
      '2026-05-02T00:00:00+05:30 2',
      '2026-05-03T00:00:00+05:30 0',
    ]);
    const hours = await aggregate(orgId, 'Asia/Kathmandu', { groupBy: 'time', from: '2026-05-02', to: '2026-05-02' });
    expect(series(hours).slice(0, 2)).toEqual(['2026-05-02T00:00:00+05:45 4', '2026-05-02T01:00:00+05:45 0']);
    expect(hours.data).toHaveLength(24);
  });

  it('aggregates: zero-filled buckets; weeks start on Monday, months on the 1st; +00:00 for UTC', async () => {
    const orgId = newOrgId();
    await getStore().insert([eventRecord({ orgId, createdAtMicros: isoMicros('2026-02-11T10:00:00Z').toString() })], randomUUID());
    const days = await aggregate(orgId, 'UTC', { groupBy: 'time', from: '2026-02-09', to: '2026-02-13' });
    expect(series(days)).toEqual([
      '2026-02-09T00:00:00+00:00 0',
      '2026-02-10T00:00:00+00:00 0',
      '2026-02-11T00:00:00+00:00 1',
      '2026-02-12T00:00:00+00:00 0',
      '2026-02-13T00:00:00+00:00 0',
    ]);
    const weeks = await aggregate(orgId, 'UTC', { groupBy: 'time', from: '2026-02-04', to: '2026-02-20', interval: 'week' });
    expect(series(weeks)).toEqual(['2026-02-02T00:00:00+00:00 0', '2026-02-09T00:00:00+00:00 1', '2026-02-16T00:00:00+00:00 0']);
    const months = await aggregate(orgId, 'Europe/Berlin', { groupBy: 'time', from: '2026-01-15', to: '2026-04-02', interval: 'month' });
    expect(series(months)).toEqual([
      '2026-01-01T00:00:00+01:00 0',
      '2026-02-01T00:00:00+01:00 1',
      '2026-03-01T00:00:00+01:00 0',
      '2026-04-01T00:00:00+02:00 0',
    ]);
    const none = await aggregate(orgId, 'UTC', { groupBy: 'countryCode', from: '2026-02-09', to: '2026-02-13' });
    expect(none).toEqual({ groupBy: 'countryCode', timeZone: 'UTC', from: '2026-02-09', to: '2026-02-13', total: 1, data: [{ key: null, events: 1 }] });
    const empty = await aggregate(orgId, 'UTC', { groupBy: 'shortCode', from: '2026-02-09', to: '2026-02-13', shortCode: 'nope-nope' });
    expect(empty).toMatchObject({ total: 0, data: [] });
  });

  const visitors = async (orgId: string, tz: string, q: Record<string, string>): Promise<VisitorsResponse> => {
    const r = await getStore().visitors(orgId, tz, aggReq({ ...q, metric: 'visitors' }));
    expect(visitorsResponseSchema.parse(r)).toEqual(r);
    return r;
  };
  const within1 = (n: number | undefined, exact: number) => {
    expect(n).toBeGreaterThanOrEqual(Math.floor(exact * 0.99));
    expect(n).toBeLessThanOrEqual(Math.ceil(exact * 1.01));
  };

  it('visitors: exact for 5,000 distinct in a bucket, within 1% for 12,000; one visitor twice counts once; events without one count none', async () => {
    const orgId = newOrgId();
    const id = (i: number, set: string) => createHash('sha256').update(`${set}:${i}`).digest('hex').slice(0, 16);
    const second = 1_000_000n;
    const june10 = isoMicros('2026-06-10T08:00:00Z');
    const june11 = isoMicros('2026-06-11T08:00:00Z');
    const rows: EventRecord[] = [
      ...Array.from({ length: 5000 }, (_, i) =>
        eventRecord({ orgId, createdAtMicros: (june10 + BigInt(i) * second).toString(), visitorId: id(i, 'a'), shortCode: 'five' }),
      ),
      // The same 5,000 again later that day.
      ...Array.from({ length: 5000 }, (_, i) =>
        eventRecord({ orgId, createdAtMicros: (june10 + 7200n * second + BigInt(i) * second).toString(), visitorId: id(i, 'a'), shortCode: 'five' }),
      ),
      ...Array.from({ length: 12_000 }, (_, i) =>
        eventRecord({ orgId, createdAtMicros: (june11 + BigInt(i) * second).toString(), visitorId: id(i, 'b'), shortCode: 'twelve' }),
      ),
      ...Array.from({ length: 300 }, (_, i) =>
        eventRecord({ orgId, createdAtMicros: (june10 + BigInt(i) * second).toString(), visitorId: null, shortCode: 'anon' }),
      ),
    ];
    await getStore().insert(rows, randomUUID());
    const days = await visitors(orgId, 'UTC', { groupBy: 'time', from: '2026-06-10', to: '2026-06-12', interval: 'day' });
    expect(days.metric).toBe('visitors');
    expect(days.data[0]).toEqual({ key: '2026-06-10T00:00:00+00:00', visitors: 5000 });
    within1(days.data[1]?.visitors, 12_000);
    expect(days.data[2]).toEqual({ key: '2026-06-12T00:00:00+00:00', visitors: 0 });
    within1(days.total, 17_000);
    const top = await visitors(orgId, 'UTC', { groupBy: 'shortCode', from: '2026-06-10', to: '2026-06-11' });
    expect(top.data.map((d) => d.key)).toEqual(['twelve', 'five']);
    expect(top.data[1]?.visitors).toBe(5000);
    const five = await visitors(orgId, 'UTC', { groupBy: 'time', from: '2026-06-10', to: '2026-06-10', shortCode: 'five' });
    expect(five.total).toBe(5000);
    expect(five.interval).toBe('hour');
    // 08:00–09:23 and 10:00–11:23: each hour holds its own distinct visitors.
    expect(five.data.filter((b) => b.visitors > 0).map((b) => b.visitors)).toEqual([3600, 1400, 3600, 1400]);
    // The events metric is untouched: every event counts.
    expect((await aggregate(orgId, 'UTC', { groupBy: 'time', from: '2026-06-10', to: '2026-06-11', interval: 'day' })).total).toBe(22_300);
  }, 120_000);

  it('visitors: the same person is one visitor a local day and two on two days, per organisation; bots are set apart', async () => {
    const orgId = newOrgId();
    const other = newOrgId();
    const enricher = new HitEnricher({ salts: new MemoryVisitorSalts() });
    const person = { ip: '8.8.8.8', userAgent: CHROME_WINDOWS_UA, timeZone: 'Europe/Berlin' };
    const at = (iso: string) => Number(isoMicros(iso));
    const hits = [
      rawHit({ orgId, ...person, clickedAtMicros: at('2026-06-10T10:00:00Z') }), // 12:00, 10 June in Berlin
      rawHit({ orgId, ...person, clickedAtMicros: at('2026-06-10T21:30:00Z') }), // 23:30, 10 June
      rawHit({ orgId, ...person, clickedAtMicros: at('2026-06-10T22:30:00Z') }), // 00:30, 11 June
      rawHit({ orgId, ...person, ip: '8.8.4.4', clickedAtMicros: at('2026-06-10T10:00:00Z') }), // another address: another visitor
      rawHit({ orgId, ...person, userAgent: 'curl/8.5.0', clickedAtMicros: at('2026-06-10T11:00:00Z') }), // a bot
      rawHit({ orgId: other, ...person, clickedAtMicros: at('2026-06-10T10:00:00Z') }),
      rawHit({ orgId, ...person, ip: null, clickedAtMicros: at('2026-06-10T12:00:00Z') }), // no address: no visitor
    ];
    const records = await enricher.enrich(hits);
    const ids = records.map((r) => r.visitorId);
    expect(ids[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids[5]).not.toBe(ids[0]);
    expect(ids[6]).toBeNull();
    await getStore().insert(records, randomUUID());
    const q = { groupBy: 'time', from: '2026-06-10', to: '2026-06-11', interval: 'day' };
    const all = await visitors(orgId, 'Europe/Berlin', q);
    expect(all.data.map((b) => b.visitors)).toEqual([3, 1]);
    expect(all.total).toBe(4);
    expect((await visitors(orgId, 'Europe/Berlin', { ...q, bots: 'exclude' })).data.map((b) => b.visitors)).toEqual([2, 1]);
    expect((await visitors(orgId, 'Europe/Berlin', { ...q, bots: 'only' })).total).toBe(1);
    expect((await visitors(other, 'Europe/Berlin', q)).total).toBe(1);
  });
}
