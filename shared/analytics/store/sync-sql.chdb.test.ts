// Invariant: syncSql returns, for every window (position, limit, filters), exactly the rows of the
// plain definition of a sync page (FINAL, filtered by the window, sorted by (ingested_at,
// event_id), cut at the limit), on data built to stress its candidate shortcut: late events,
// batches sharing one ingestion stamp, unmerged repeated inserts (later, earlier and same-stamp
// copies, copies that differ), unsettled rows, several parts, before and after a merge.
// Runs on the embedded chDB engine in a fresh temporary directory.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRecord } from '../events/analytics-event.ts';
import { eventRecord } from '../events/analytics-fixtures.ts';
import { ChdbTransport } from '../clickhouse/chdb-transport.ts';
import { CREATE_EVENTS_TABLE, EVENTS_TABLE } from '../clickhouse/events-table.ts';
import { INSERT_COLUMNS, insertSettings, syncSql, type FilterFlags } from '../clickhouse/clickhouse-sql.ts';
import { encodeEventBlock } from '../clickhouse/event-native-block.ts';
import { batchFromRecords } from '../events/event-batch.ts';
import type { QueryParams } from '../clickhouse/clickhouse-transport.ts';
import { mulberry32 } from '../../../test/support/prng.ts';

/** The definition of a sync page: plain FINAL over the window (syncSql before its shortcut). */
function referenceSyncSql(f: FilterFlags & { afterEventId: boolean }): string {
  const position = f.afterEventId
    ? `AND (ingested_at, event_id) > (fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC'), {afterEventId:UUID})`
    : `AND ingested_at >= fromUnixTimestamp64Micro({sinceMicros:Int64}, 'UTC')`;
  return `SELECT toString(event_id) AS eventId, toString(toUnixTimestamp64Micro(ingested_at)) AS ingestedAtMicros, short_code AS shortCode, referrer
FROM ${EVENTS_TABLE} FINAL
WHERE org_id = {orgId:String} ${position}
  AND ingested_at <= now64(6) - toIntervalMillisecond({settleMillis:UInt32})
  ${f.shortCode ? 'AND short_code = {shortCode:String}' : ''}
  ${f.clickSource ? 'AND click_source = {clickSource:String}' : ''}
  ${f.eventType ? 'AND event_type = {eventType:String}' : ''}
ORDER BY ingested_at, event_id
LIMIT {limit:UInt32}`;
}

interface Row {
  eventId: string;
  ingestedAtMicros: string;
  shortCode: string;
  referrer: string | null;
}

const SECOND = 1_000_000n;
const CODES = ['code-a', 'code-b', 'code-c'] as const;
const SOURCES = ['DIRECT', 'QR_CODE'] as const;

describe('syncSql', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'sync-sql-'));
  const transport = new ChdbTransport(dir);
  const orgId = randomUUID();
  const cleanOrgId = randomUUID();
  const random = mulberry32(20260522);
  const pick = <T>(xs: readonly T[]): T => {
    const x = xs[Math.floor(random() * xs.length)];
    if (x === undefined) throw new Error('empty');
    return x;
  };
  /** Every (ingested_at, event_id) stored, as positions to sync from. */
  const positions: { since: bigint; eventId: string }[] = [];
  const now = BigInt(Date.now()) * 1000n;
  const base = now - 10n * 86_400n * SECOND;

  async function insert(rows: readonly { record: EventRecord; ingestedMicros: bigint }[]): Promise<void> {
    for (const r of rows) positions.push({ since: r.ingestedMicros, eventId: r.record.eventId });
    const ingested = { column: 'ingested_at', type: "DateTime64(6, 'UTC')", micros: BigInt64Array.from(rows, (r) => r.ingestedMicros) };
    const batch = batchFromRecords(rows.map((r) => r.record));
    await transport.insertNative(
      EVENTS_TABLE,
      [...INSERT_COLUMNS, 'ingested_at'],
      encodeEventBlock(batch, 0, batch.rows, [ingested]),
      insertSettings(randomUUID()),
    );
  }

  function record(org: string, createdMicros: bigint): EventRecord {
    return eventRecord({
      orgId: org,
      eventId: uuidv7(),
      createdAtMicros: createdMicros.toString(),
      shortCode: pick(CODES),
      clickSource: pick(SOURCES),
      eventType: random() < 0.8 ? 'CLICK' : 'METADATA_PREVIEW',
    });
  }

  async function page(sql: string, params: QueryParams): Promise<Row[]> {
    return transport.queryRows<Row>(sql, params);
  }

  async function compare(
    org: string,
    since: bigint,
    afterEventId: string | null,
    limit: number,
    filters: Partial<Record<'shortCode' | 'clickSource' | 'eventType', string>>,
  ): Promise<Row[]> {
    const flags = {
      shortCode: filters.shortCode !== undefined,
      clickSource: filters.clickSource !== undefined,
      eventType: filters.eventType !== undefined,
      afterEventId: afterEventId !== null,
    };
    const params: Record<string, string | number> = { orgId: org, sinceMicros: since.toString(), settleMillis: 0, limit, ...filters };
    if (afterEventId !== null) params.afterEventId = afterEventId;
    const got = (await page(syncSql(flags), params)).map((r) => ({
      eventId: r.eventId,
      ingestedAtMicros: r.ingestedAtMicros,
      shortCode: r.shortCode,
      referrer: r.referrer,
    }));
    const want = await page(referenceSyncSql(flags), params);
    expect(got, JSON.stringify({ since: since.toString(), afterEventId, limit, filters })).toEqual(want);
    return want;
  }

  beforeAll(async () => {
    await transport.exec(CREATE_EVENTS_TABLE);
    // Background merges would collapse the repeated copies this suite is about.
    await transport.exec(`SYSTEM STOP MERGES ${EVENTS_TABLE}`);
    const stored: { record: EventRecord; ingestedMicros: bigint }[] = [];
    // 30 batches in click order, ingested 1–3 s after the batch's last click; half of them
    // share one stamp per batch (as the server stamps them), half have a stamp per row.
    let clock = base;
    for (let b = 0; b < 30; b++) {
      const batch: { record: EventRecord; ingestedMicros: bigint }[] = [];
      const shared = b % 2 === 0;
      const n = 5 + Math.floor(random() * 20);
      for (let i = 0; i < n; i++) {
        clock += BigInt(1 + Math.floor(random() * 5_000_000));
        batch.push({ record: record(orgId, clock), ingestedMicros: 0n });
      }
      const stamp = clock + SECOND + BigInt(Math.floor(random() * 2_000_000));
      for (const [i, x] of batch.entries()) x.ingestedMicros = shared ? stamp : stamp + BigInt(i);
      await insert(batch);
      stored.push(...batch);
      // The same batches for an organisation that never sees a repeated insert.
      await insert(batch.map((x) => ({ record: { ...x.record, orgId: cleanOrgId, eventId: uuidv7() }, ingestedMicros: x.ingestedMicros })));
      clock = stamp;
    }
    // Late events: clicks from days ago, ingested now-ish, one stamp.
    const lateStamp = clock + 10n * SECOND;
    await insert(
      Array.from({ length: 15 }, () => ({ record: record(orgId, base - BigInt(Math.floor(random() * 86_400)) * SECOND), ingestedMicros: lateStamp })),
    );
    // Repeated inserts of stored events: later copies (invisible), an earlier copy inserted
    // afterwards (it wins), copies sharing the original's stamp, and a later copy that differs.
    const later = stored.filter(() => random() < 0.1);
    await insert(later.map((x) => ({ record: x.record, ingestedMicros: lateStamp + SECOND + BigInt(Math.floor(random() * 1000)) })));
    const earlier = stored.filter(() => random() < 0.03);
    await insert(earlier.map((x) => ({ record: x.record, ingestedMicros: x.ingestedMicros - 500_000n })));
    const sameStamp = stored.filter(() => random() < 0.03);
    await insert(sameStamp.map((x) => ({ record: x.record, ingestedMicros: x.ingestedMicros })));
    const differing = stored.filter(() => random() < 0.03);
    await insert(
      differing.map((x) => ({
        record: { ...x.record, shortCode: 'code-z', referrer: 'https://changed.example/' },
        ingestedMicros: x.ingestedMicros + 2n * SECOND,
      })),
    );
    // A batch repeated inside one insert (one stamp), and unsettled rows (stamped in the future).
    const twice = Array.from({ length: 6 }, () => record(orgId, clock + BigInt(Math.floor(random() * 1000))));
    await insert([...twice, ...twice.slice(0, 3)].map((r) => ({ record: r, ingestedMicros: lateStamp + 5n * SECOND })));
    await insert(Array.from({ length: 8 }, () => ({ record: record(orgId, clock), ingestedMicros: now + 3600n * SECOND })));
  }, 120_000);

  afterAll(async () => {
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const randomWindow = (): {
    since: bigint;
    afterEventId: string | null;
    limit: number;
    filters: Partial<Record<'shortCode' | 'clickSource' | 'eventType', string>>;
  } => {
    const p = pick(positions);
    const r = random();
    const since = r < 0.1 ? 0n : r < 0.2 ? p.since + 1n : r < 0.25 ? now + 7200n * SECOND : p.since;
    const afterEventId =
      random() < 0.5 ? null : random() < 0.8 ? p.eventId : pick(['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', uuidv7()]);
    const filters: Partial<Record<'shortCode' | 'clickSource' | 'eventType', string>> = {};
    if (random() < 0.2) filters.shortCode = pick([...CODES, 'code-z']);
    if (random() < 0.15) filters.clickSource = pick(SOURCES);
    if (random() < 0.15) filters.eventType = 'METADATA_PREVIEW';
    return { since, afterEventId, limit: pick([1, 2, 3, 5, 8, 20, 60, 1000]), filters };
  };

  it('returns the rows of plain FINAL for random windows, with and without repeated inserts', async () => {
    for (let i = 0; i < 60; i++) {
      const w = randomWindow();
      await compare(i % 3 === 0 ? cleanOrgId : orgId, w.since, w.afterEventId, w.limit, w.filters);
    }
  }, 120_000);

  it('returns the rows of plain FINAL for windows that start just before a repeated copy', async () => {
    // Every stored row in sync order, and which of them have another copy.
    const rows = await page(
      `SELECT toString(event_id) AS eventId, toString(toUnixTimestamp64Micro(ingested_at)) AS ingestedAtMicros, short_code AS shortCode, referrer,
         count() OVER (PARTITION BY created_at, event_id) > 1 AS repeated
       FROM ${EVENTS_TABLE} WHERE org_id = {orgId:String} ORDER BY ingested_at, event_id`,
      { orgId },
    );
    const repeated = rows.flatMap((r, i) => ((r as Row & { repeated: number }).repeated ? [i] : []));
    expect(repeated.length).toBeGreaterThan(50);
    for (const i of repeated.filter(() => random() < 0.6)) {
      const back = 1 + Math.floor(random() * 3);
      const start = rows[Math.max(0, i - back)];
      if (!start) continue;
      const inclusive = random() < 0.3;
      const filters: Partial<Record<'shortCode' | 'clickSource' | 'eventType', string>> = random() < 0.2 ? { shortCode: pick([...CODES, 'code-z']) } : {};
      await compare(orgId, BigInt(start.ingestedAtMicros), inclusive ? null : start.eventId, back + Math.floor(random() * 3), filters);
    }
  }, 120_000);

  it('gives a consumer paging from the start the same pages as plain FINAL, before and after a merge', async () => {
    const consume = async (org: string, limit: number): Promise<string[]> => {
      const seen: string[] = [];
      let since = 0n;
      let after: string | null = null;
      for (let guard = 0; guard < 1000; guard++) {
        const rows = await compare(org, since, after, limit + 1, {});
        const pageRows = rows.slice(0, limit);
        seen.push(...pageRows.map((r) => r.eventId));
        const last = pageRows.at(-1);
        if (rows.length <= limit || !last) return seen;
        since = BigInt(last.ingestedAtMicros);
        after = last.eventId;
      }
      throw new Error('sync did not end');
    };
    const physicalRows = async (): Promise<number> =>
      Number(
        (await page(`SELECT toString(count()) AS eventId FROM ${EVENTS_TABLE} WHERE org_id = {orgId:String} AND ingested_at <= now64(6)`, { orgId }))[0]
          ?.eventId,
      );
    let seenRows = 0;
    for (const limit of [6, 40]) {
      const seen = await consume(orgId, limit);
      seenRows = seen.length;
      expect(new Set(seen).size).toBe(seen.length);
      expect(await consume(cleanOrgId, limit)).toHaveLength(seen.length - 15 - 6); // no late events, no repeated batch
    }
    expect(await physicalRows()).toBeGreaterThan(seenRows); // repeated copies still stored
    await transport.exec(`SYSTEM START MERGES ${EVENTS_TABLE}`);
    await transport.exec(`OPTIMIZE TABLE ${EVENTS_TABLE} FINAL`);
    expect(await physicalRows()).toBe(seenRows);
    const merged = await consume(orgId, 30);
    expect(new Set(merged).size).toBe(merged.length);
    for (let i = 0; i < 20; i++) {
      const w = randomWindow();
      await compare(orgId, w.since, w.afterEventId, w.limit, w.filters);
    }
  }, 120_000);
});
