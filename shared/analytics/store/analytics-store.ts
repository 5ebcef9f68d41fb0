// Invariant: the AnalyticsStore is the only reader and writer of stored analytics events, and
// every read is duplicate-proof (FINAL over a ReplacingMergeTree keyed by event) and scoped to
// one organisation.
//
// Sync guarantee. Sync order is (ingestedAt, eventId), where ingestedAt is stamped by the
// ClickHouse server (DEFAULT now64(6)) when the batch holding the event is inserted, so an event
// that happened long ago but arrives late (a delayed batch, a backfill after an outage) is placed
// at the END of the sync order, after every position a consumer already holds. A sync call
// returns only "settled" rows, ingestedAt <= now() - settle margin (now() of the same server).
// Assumption: every insert becomes visible to readers within the margin of its ingestedAt stamp
// (insert duration < margin) and the server clock never steps back by more than the margin;
// on a multi-node cluster, node clocks must also agree within the margin. Under it, the settled
// prefix of the sync order never changes once read: no row can later appear at or before a
// position the consumer was given. Hence a consumer that keeps passing nextSince + afterEventId
// (the last returned row's position) sees every event exactly once: each event is eventually
// settled and lies after the consumer's position exactly until it is returned. A repeated
// insert of the same event never shows: FINAL keeps only the first-ingested copy (its original
// position), and a retried batch carries its original insert_deduplication_token anyway.
// Browse and export are in (createdAt, eventId) order over [local midnight of from, local
// midnight after to) in the organisation's time zone.
import type { EventRecord } from '../events/analytics-event.ts';
import { batchFromRecords, type EventBatch } from '../events/event-batch.ts';
import { encodeEventBlockByColumn } from '../clickhouse/event-native-block.ts';
import type { EventPage } from '../reads/event-page.ts';
import { feedPageOf, parseFeedLines, type FeedPage, type FeedPosition } from '../reads/feed-page.ts';
import { toAnalyticsEvent } from '../events/analytics-event.ts';
import type { AggregateFilters, AggregatesRequest, BrowseRequest, EventFilters, ExportRequest, SyncRequest } from '../reads/analytics-params.ts';
import type { AggregateResponse, VisitorsResponse } from '../model/aggregate-response.ts';
import { bucketSlots } from '../reads/time-buckets.ts';
import { EVENT_FIELD_NAMES, EVENT_FIELDS } from '../events/event-schema.ts';
import { AGGREGATE_ONLY_DIMENSIONS, DEFAULT_AGGREGATE_LIMIT, type Dimension } from '../model/dimensions.ts';
import { type AggregatePlan, planAggregate } from '../reads/aggregate-plan.ts';
import { encodeBrowseCursor } from '../reads/browse-cursor.ts';
import {
  aggregateSlotsSql,
  aggregateTopSql,
  visitorBucketsSql,
  visitorTopSql,
  visitorTotalSql,
  rollupTopSql,
  rollupSlotsSql,
  type AggregateFilterFlags,
  type FilterFlags,
  browseSql,
  COUNT_EVENTS_SQL,
  COUNT_PHYSICAL_ROWS_SQL,
  EXPORT_LINES_FORMAT,
  exportLinesSql,
  FEED_LINES_FORMAT,
  feedCopiesSql,
  feedSql,
  INSERT_COLUMNS,
  PING_SQL,
  syncSql,
  type StoredEventRow,
} from '../clickhouse/clickhouse-sql.ts';
import { EVENTS_TABLE, MERGE_SETTINGS } from '../clickhouse/events-table.ts';
import { analyticsSchema, type AnalyticsSchema } from '../clickhouse/analytics-schema.ts';
import { localTable, type ClusterOptions } from '../clickhouse/cluster-layout.ts';
import {
  BACKFILL_PARTITION_SQL,
  ROLLUP_BACKFILL_TABLE,
  ROLLUP_PROJECTIONS,
  ROLLUP_SLOT_SECONDS,
  ROLLUP_VIEW,
  ROLLUP_VIEW_QUERY_MARK,
  rollupViewT0,
  TIME_DIMENSION,
} from '../clickhouse/rollup-table.ts';
import type { ClickHouseTransport, QueryParams } from '../clickhouse/clickhouse-transport.ts';
import { exportBytes } from '../reads/event-export.ts';
import { localDayRangeMicros } from '../reads/local-day-range.ts';
import { formatMicros } from '../../time/instant.ts';

const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Production default: a row becomes visible to sync this long after its ingestion stamp. */
export const DEFAULT_SYNC_SETTLE_MILLIS = 2000;

export interface AnalyticsStoreOptions {
  /** Settling margin of sync (ms). 2000 in production; tests may use a few ms. */
  syncSettleMillis?: number;
  /** Read aggregates from the rollup where it can answer (default true; false: raw events only). */
  useRollup?: boolean;
  /** CLICKHOUSE_CLUSTER and CLICKHOUSE_INSERT_QUORUM; unset or null: one node. */
  cluster?: ClusterOptions | null;
  /** How far ahead a new rollup view's t0 is set (ms); default 2 s, on a cluster 30 s. Tests may shorten it. */
  rollupT0LeadMs?: number;
}

/** Query parameters of the filters that are set (the SQL references only those). */
export function filterParams(f: EventFilters): Record<string, string> {
  const p: Record<string, string> = {};
  if (f.shortCode !== null) p.shortCode = f.shortCode;
  if (f.clickSource !== null) p.clickSource = f.clickSource;
  if (f.eventType !== null) p.eventType = f.eventType;
  return p;
}

/** Which filters are set: selects the WHERE clauses of the store's SQL. */
export function filterFlags(f: EventFilters): FilterFlags {
  return { shortCode: f.shortCode !== null, clickSource: f.clickSource !== null, eventType: f.eventType !== null, bots: f.bots };
}

/** Query parameters of the set aggregate filters (eventType always set). */
export function aggregateFilterParams(f: AggregateFilters): Record<string, string> {
  const p = filterParams(f);
  for (const k of EXACT_FILTERS) {
    const v = f[k];
    if (v !== null) p[k] = v;
  }
  return p;
}

/** Aggregate filters beyond Browse's, each an equality on its column. */
const EXACT_FILTERS = AGGREGATE_ONLY_DIMENSIONS;

export function aggregateFilterFlags(f: AggregateFilters): AggregateFilterFlags {
  return { ...filterFlags(f), columns: EXACT_FILTERS.filter((k) => f[k] !== null).map((k) => ({ param: k, column: EVENT_FIELDS[k].column })) };
}

const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether a rollup table's definition has every projection of ROLLUP_PROJECTIONS. */
const hasProjections = (definition: string | null): boolean =>
  Object.values(ROLLUP_PROJECTIONS).every((name) => new RegExp(`\\bPROJECTION ${name}\\b`).test(definition ?? ''));

export class AnalyticsStore {
  readonly syncSettleMillis: number;
  readonly useRollup: boolean;
  /** The cluster the tables live on (null: one node). */
  readonly cluster: ClusterOptions | null;
  readonly #schema: AnalyticsSchema;
  readonly #t0LeadMs: number;
  /** True once every partition ingested before the view's t0 is counted into the rollup. */
  rollupReady = false;
  /** The background backfill of the rollup started by ensureSchema (resolves when it ends). */
  rollupBackfill: Promise<void> = Promise.resolve();
  /** Why the backfill stopped, when it failed (reads then stay on raw events). */
  rollupBackfillError: unknown = null;
  #closed = false;
  #backfillStarted = false;

  constructor(
    readonly transport: ClickHouseTransport,
    options: AnalyticsStoreOptions = {},
  ) {
    this.syncSettleMillis = options.syncSettleMillis ?? DEFAULT_SYNC_SETTLE_MILLIS;
    this.useRollup = options.useRollup ?? true;
    this.cluster = options.cluster ?? null;
    this.#schema = analyticsSchema(this.cluster);
    this.#t0LeadMs = options.rollupT0LeadMs ?? this.#schema.t0LeadMs;
  }

  /**
   * Creates the rollup, its view and the backfill's bookkeeping when missing (`create`), then
   * counts what was ingested before the view into the rollup in the background (rollupBackfill).
   */
  async #ensureRollup(create: boolean): Promise<void> {
    if (create) {
      await this.transport.exec(this.#schema.dropLegacyView);
      for (const table of this.#schema.rollupTables) await this.transport.exec(table);
      const [now] = await this.transport.queryRows<{ t: string }>('SELECT toString(toUnixTimestamp64Micro(now64(6))) AS t', {});
      await this.transport.exec(this.#schema.view(BigInt(now?.t ?? '0') + BigInt(this.#t0LeadMs) * 1000n));
    }
    const [view] = await this.transport.queryRows<{ q: string }>(
      'SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = {name:String}',
      { name: ROLLUP_VIEW },
    );
    const t0 = rollupViewT0(view?.q ?? '');
    if (t0 === null) throw new Error(`${ROLLUP_VIEW} has no t0 in its definition`);
    // A view made by an older version counts the same, more slowly: its query is replaced in
    // place, keeping its t0, so no insert is counted twice or missed.
    if (!view?.q.includes(ROLLUP_VIEW_QUERY_MARK)) await this.transport.exec(this.#schema.upgradeView(t0));
    if (this.#backfillStarted) return;
    this.#backfillStarted = true;
    this.rollupBackfill = this.#backfillRollup(t0).catch((err: unknown) => {
      // Reads stay on raw events; the next start resumes the backfill where it stopped.
      this.rollupBackfillError = err;
    });
  }

  async #backfillRollup(t0: bigint): Promise<void> {
    const doneRows = async () =>
      new Set(
        (
          await this.transport.queryRows<{ p: string }>(
            `SELECT partition_id AS p FROM ${ROLLUP_BACKFILL_TABLE} FINAL WHERE done = 1 AND t0_micros = {t0:Int64}`,
            {
              t0: t0.toString(),
            },
          )
        ).map((r) => r.p),
      );
    if ((await doneRows()).has('all')) {
      this.rollupReady = true;
      return;
    }
    // Wait until t0 has passed by the settle margin: every row stamped before t0 is visible then.
    for (;;) {
      if (this.#closed) return;
      const [row] = await this.transport.queryRows<{ t: string }>('SELECT toString(toUnixTimestamp64Micro(now64(6))) AS t', {});
      const waitMs = Number((t0 - BigInt(row?.t ?? '0')) / 1000n) + this.syncSettleMillis;
      if (waitMs <= 0) break;
      await sleepMs(Math.min(waitMs, 250));
    }
    const done = await doneRows();
    for (const p of await this.partitions(EVENTS_TABLE)) {
      if (this.#closed) return;
      if (done.has(p)) continue;
      // One INSERT … SELECT per partition; its token makes a repeated run (another process, a
      // resumed one) add nothing twice.
      const settings = `insert_deduplication_token = 'rollup-${p}-${t0}', insert_deduplicate = 1${this.#schema.insertSettingsSql}`;
      await this.transport.exec(`${BACKFILL_PARTITION_SQL} SETTINGS ${settings}`, {
        partitionId: p,
        t0Micros: t0.toString(),
      });
      await this.#markDone(p, t0);
    }
    await this.#markDone('all', t0);
    this.rollupReady = true;
    // The first rollup (no people rows) is replaced by this one: its tables go (left in place, harmless, should that fail).
    for (const drop of this.#schema.dropLegacyTables) await this.transport.exec(drop).catch(() => undefined);
  }

  async #markDone(partition: string, t0: bigint): Promise<void> {
    await this.transport.exec(this.#schema.markDoneSql, { p: partition, t0: t0.toString() });
  }

  /**
   * Whether the connected node has every table of the cluster schema and the view, the events table
   * every column and its merge settings, and the rollup its projections.
   */
  async #clusterSchemaPresent(): Promise<boolean> {
    const { objects, tunedTable, rollupTable } = this.#schema;
    const here = 'FROM system.tables WHERE database = currentDatabase()';
    const columns = EVENT_FIELD_NAMES.map((k) => `'${EVENT_FIELDS[k].column}'`).join(', ');
    const [row] = await this.transport.queryRows<{ present: number; columns: number; engine: string; rollup: string }>(
      `SELECT hasAll((SELECT groupArray(name) ${here}), [${objects.map((n) => `'${n}'`).join(', ')}]) AS present,
  hasAll((SELECT groupArray(name) FROM system.columns WHERE database = currentDatabase() AND table = '${tunedTable}'), [${columns}]) AS columns,
  (SELECT any(engine_full) ${here} AND name = '${tunedTable}') AS engine,
  (SELECT any(create_table_query) ${here} AND name = '${rollupTable}') AS rollup`,
      {},
    );
    const tuned = Object.entries(MERGE_SETTINGS).every(([k, v]) => new RegExp(`\\b${k} = ${v}(?![\\d.])`).test(row?.engine ?? ''));
    return row?.present === 1 && row.columns === 1 && tuned && hasProjections(row.rollup);
  }

  /** The rollup table's definition (the local table's on a cluster), or null while it does not exist. */
  async #rollupDefinition(): Promise<string | null> {
    const [row] = await this.transport.queryRows<{ q: string }>(
      `SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = '${this.#schema.rollupTable}'`,
      {},
    );
    return row?.q ?? null;
  }

  /** A read of the analytics tables (its SQL ends with a SETTINGS list) with the cluster's read settings, if any. */
  #read(sql: string, read: 'sync' | 'other' = 'other'): string {
    return sql + this.#schema.readSettingsSql(read);
  }

  async #database(): Promise<string> {
    const [row] = await this.transport.queryRows<{ db: string }>('SELECT currentDatabase() AS db', {});
    return row?.db ?? 'default';
  }

  /**
   * Creates the tables and the rollup's view when missing, applies the events table's merge
   * settings and gives the rollup its projections (built for its older parts once, when they were
   * missing); a server that does not know a setting or refuses a projection keeps its default and
   * answers the same (the error is returned for the caller to log). On a cluster every statement
   * is ON CLUSTER (analytics-schema.ts), and none is sent when the connected node already has them
   * all, tuned: each would queue on every node, and a fleet starts many processes (the schema is
   * usually made by `migrate clickhouse`).
   */
  async ensureSchema(): Promise<{ tuned: boolean; error?: unknown }> {
    const present = this.cluster !== null && (await this.#clusterSchemaPresent());
    if (present) {
      await this.#ensureRollup(false);
      return { tuned: true };
    }
    const rollupBefore = await this.#rollupDefinition();
    for (const table of this.#schema.eventsTables) await this.transport.exec(table);
    await this.#ensureRollup(true);
    const errors: unknown[] = [];
    for (const sql of this.#schema.tune) await this.transport.exec(sql).catch((err: unknown) => errors.push(err));
    // A rollup made before the projections gets them for its existing parts too (new parts have them).
    if (rollupBefore !== null && !hasProjections(rollupBefore) && hasProjections(await this.#rollupDefinition())) {
      await this.transport.exec(this.#schema.materializeProjection).catch((err: unknown) => errors.push(err));
    }
    const error = errors[0] ?? null;
    return error === null ? { tuned: true } : { tuned: false, error };
  }

  /**
   * Inserts one batch atomically. `dedupToken` identifies the batch: a retry of the same batch
   * must pass the same token (and the same records) and then never duplicates an event.
   */
  async insert(records: readonly EventRecord[], dedupToken: string): Promise<void> {
    await this.insertBatch(batchFromRecords(records), dedupToken);
  }

  /**
   * Inserts the batch as one Native block (each distinct value written once per column), encoded
   * a column per event-loop turn (the redirector may share the loop).
   */
  async insertBatch(batch: EventBatch, dedupToken: string): Promise<void> {
    if (batch.rows === 0) return;
    const block = await encodeEventBlockByColumn(batch, nextTurn);
    await this.transport.insertNative(EVENTS_TABLE, INSERT_COLUMNS, block, this.#schema.insertSettings(dedupToken));
  }

  async browse(orgId: string, timeZone: string, req: BrowseRequest): Promise<EventPage> {
    const { fromMicros, toMicros } = localDayRangeMicros(req.from, req.to, timeZone);
    const params: Record<string, string | number> = {
      orgId,
      fromMicros: fromMicros.toString(),
      toMicros: toMicros.toString(),
      limit: req.limit + 1,
      ...filterParams(req.filters),
    };
    if (req.cursor) {
      params.cursorMicros = req.cursor.createdAtMicros.toString();
      params.cursorEventId = req.cursor.eventId;
    }
    const rows = await this.transport.queryRows<StoredEventRow>(this.#read(browseSql({ ...filterFlags(req.filters), cursor: req.cursor !== null })), params);
    const hasMore = rows.length > req.limit;
    const page = hasMore ? rows.slice(0, req.limit) : rows;
    const last = page.at(-1);
    const nextCursor = last
      ? encodeBrowseCursor({ createdAtMicros: BigInt(last.createdAtMicros), eventId: last.eventId })
      : req.cursor
        ? encodeBrowseCursor(req.cursor)
        : null;
    return { data: page.map(toAnalyticsEvent), hasMore, nextCursor, nextSince: null, afterEventId: null };
  }

  async sync(orgId: string, req: SyncRequest): Promise<EventPage> {
    const since = req.sinceMicros < 0n ? 0n : req.sinceMicros;
    const params: Record<string, string | number> = {
      orgId,
      sinceMicros: since.toString(),
      settleMillis: this.syncSettleMillis,
      limit: req.limit + 1,
      ...filterParams(req.filters),
    };
    if (req.afterEventId !== null) params.afterEventId = req.afterEventId;
    const rows = await this.transport.queryRows<StoredEventRow>(
      this.#read(syncSql({ ...filterFlags(req.filters), afterEventId: req.afterEventId !== null }), 'sync'),
      params,
    );
    const hasMore = rows.length > req.limit;
    const page = hasMore ? rows.slice(0, req.limit) : rows;
    const last = page.at(-1);
    return {
      data: page.map(toAnalyticsEvent),
      hasMore,
      nextCursor: null,
      nextSince: last ? formatMicros(BigInt(last.ingestedAtMicros)) : formatMicros(since),
      afterEventId: last ? last.eventId : req.afterEventId,
    };
  }

  /**
   * The analytics.events feed: up to `limit` settled events after `after` in sync order (and no
   * further than `until`, inclusive, when given: a resent message's range), printed by the engine.
   * Two reads: the window's rows as stored, then which of them have another copy (feedSql).
   */
  async feedPage(orgId: string, o: { after: FeedPosition; until?: FeedPosition; limit: number }): Promise<FeedPage> {
    const params: QueryParams = {
      orgId,
      sinceMicros: o.after.ingestedAtMicros.toString(),
      afterEventId: o.after.eventId,
      settleMillis: this.syncSettleMillis,
      limit: o.limit,
    };
    if (o.until) Object.assign(params, { untilMicros: o.until.ingestedAtMicros.toString(), untilEventId: o.until.eventId });
    const chunks: Buffer[] = [];
    for await (const chunk of this.transport.streamBytes(this.#read(feedSql(o.until !== undefined), 'sync'), params, FEED_LINES_FORMAT))
      chunks.push(Buffer.from(chunk));
    const rows = parseFeedLines(Buffer.concat(chunks).toString('utf8'));
    const firstCopy = new Map<string, bigint>();
    if (rows.length > 0) {
      let from = rows[0]?.createdAtMicros as bigint;
      let to = from;
      for (const r of rows) {
        if (r.createdAtMicros < from) from = r.createdAtMicros;
        if (r.createdAtMicros > to) to = r.createdAtMicros;
      }
      const copies = await this.transport.queryRows<{ eventId: string; firstMicros: string }>(this.#read(feedCopiesSql(), 'sync'), {
        orgId,
        fromMicros: from.toString(),
        toMicros: to.toString(),
        eventIds: `[${rows.map((r) => `'${r.eventId}'`).join(',')}]`, // the engine's text of an Array(UUID); ids as it printed them
      });
      for (const c of copies) firstCopy.set(c.eventId, BigInt(c.firstMicros));
    }
    return feedPageOf(rows, firstCopy);
  }

  /** The export file (NDJSON or CSV) as UTF-8 byte chunks, printed by the database and streamed. */
  exportEvents(orgId: string, timeZone: string, req: ExportRequest): AsyncIterable<Uint8Array> {
    const { fromMicros, toMicros } = localDayRangeMicros(req.from, req.to, timeZone);
    const params: QueryParams = { orgId, fromMicros: fromMicros.toString(), toMicros: toMicros.toString(), ...filterParams(req.filters) };
    return exportBytes(this.transport.streamBytes(this.#read(exportLinesSql(filterFlags(req.filters), req.format)), params, EXPORT_LINES_FORMAT), req.format);
  }

  /** How this store would read the request now (planAggregate with the rollup's readiness). */
  planAggregate(timeZone: string, req: AggregatesRequest): AggregatePlan {
    return planAggregate(req, timeZone, this.useRollup && this.rollupReady);
  }

  /**
   * Aggregates of the range in the organisation's time zone: a zero-filled series of local
   * buckets (the engine counts per slot, the buckets are summed here), or one dimension's top
   * values with the range's total.
   */
  async aggregate(orgId: string, timeZone: string, req: AggregatesRequest): Promise<AggregateResponse> {
    return (await this.aggregatePlanned(orgId, timeZone, req)).response;
  }

  /** An aggregates request's plan, and the parameters and filter flags of its reads over raw events. */
  #rawAggregate(
    orgId: string,
    timeZone: string,
    req: AggregatesRequest,
  ): { plan: AggregatePlan; params: Record<string, string | number>; flags: AggregateFilterFlags } {
    const plan = this.planAggregate(timeZone, req);
    const params: Record<string, string | number> = {
      orgId,
      fromMicros: plan.fromMicros.toString(),
      toMicros: plan.toMicros.toString(),
      ...aggregateFilterParams(req.filters),
    };
    return { plan, params, flags: aggregateFilterFlags(req.filters) };
  }

  /** aggregate, with the plan it executed (tests and benches check which table answered). */
  async aggregatePlanned(orgId: string, timeZone: string, req: AggregatesRequest): Promise<{ plan: AggregatePlan; response: AggregateResponse }> {
    const { plan, params, flags } = this.#rawAggregate(orgId, timeZone, req);
    const head = { groupBy: req.groupBy, timeZone, from: req.from, to: req.to };
    const rollupParams = {
      orgId,
      eventType: req.filters.eventType,
      fromSeconds: Number(plan.fromMicros / 1_000_000n),
      toSeconds: Number(plan.toMicros / 1_000_000n),
    };
    if (plan.buckets !== null && plan.interval !== null) {
      const { buckets, interval } = plan;
      params.fromSeconds = buckets.fromSeconds;
      params.slotSeconds = buckets.slotSeconds;
      const filter = plan.filtered[0];
      const rows =
        plan.source === 'rollup'
          ? await this.transport.queryRows<{ slot: string; events: string }>(this.#read(rollupSlotsSql(filter !== undefined, req.filters.bots)), {
              ...rollupParams,
              dimension: filter ?? TIME_DIMENSION,
              ...(filter !== undefined ? { value: String(req.filters[filter]) } : {}),
            })
          : await this.transport.queryRows<{ slot: string; events: string }>(this.#read(aggregateSlotsSql(flags)), params);
      const counts = bucketSlots(
        buckets,
        rows.map((r) => ({ slot: Number(r.slot), events: Number(r.events) })),
      );
      const data = buckets.keys.map((key, i) => ({ key, events: counts[i] ?? 0 }));
      const response = { groupBy: req.groupBy, interval, timeZone, from: req.from, to: req.to, total: data.reduce((n, b) => n + b.events, 0), data };
      return { plan, response };
    }
    const groupBy = req.groupBy as Dimension;
    params.limit = req.limit ?? DEFAULT_AGGREGATE_LIMIT;
    const rows =
      plan.source === 'rollup'
        ? await this.transport.queryRows<{ key: string | null; events: string; total: string }>(this.#read(rollupTopSql(req.filters.bots, plan.pieces)), {
            ...rollupParams,
            dimension: groupBy,
            dayFromSeconds: plan.days.fromSeconds,
            dayToSeconds: plan.days.toSeconds,
            hourFromSeconds: plan.hours.fromSeconds,
            hourToSeconds: plan.hours.toSeconds,
            limit: params.limit,
          })
        : await this.transport.queryRows<{ key: string | null; events: string; total: string }>(
            this.#read(aggregateTopSql(EVENT_FIELDS[groupBy].column, flags)),
            params,
          );
    return { plan, response: { ...head, total: Number(rows[0]?.total ?? 0), data: rows.map((r) => ({ key: r.key, events: Number(r.events) })) } };
  }

  /** metric=visitors: distinct visitors per bucket or per value, from raw events (the plan's range and buckets). */
  async visitors(orgId: string, timeZone: string, req: AggregatesRequest): Promise<VisitorsResponse> {
    const { plan, params, flags } = this.#rawAggregate(orgId, timeZone, req);
    const head = { groupBy: req.groupBy, timeZone, from: req.from, to: req.to, metric: 'visitors' as const };
    const [total] = await this.transport.queryRows<{ visitors: string }>(this.#read(visitorTotalSql(flags)), params);
    if (plan.buckets !== null && plan.interval !== null) {
      const { buckets, interval } = plan;
      const rows = await this.transport.queryRows<{ start: string; visitors: string }>(this.#read(visitorBucketsSql(interval, flags)), {
        ...params,
        tz: timeZone,
      });
      // Each row's local bucket start, placed among the buckets' (a row is never summed with another: one start, one bucket).
      const counts = bucketSlots(
        buckets,
        rows.map((r) => ({ slot: Number(r.start), events: Number(r.visitors) })),
      );
      const data = buckets.keys.map((key, i) => ({ key, visitors: counts[i] ?? 0 }));
      return { ...head, interval, total: Number(total?.visitors ?? 0), data };
    }
    const rows = await this.transport.queryRows<{ key: string | null; visitors: string }>(
      this.#read(visitorTopSql(EVENT_FIELDS[req.groupBy as Dimension].column, flags)),
      { ...params, limit: req.limit ?? DEFAULT_AGGREGATE_LIMIT },
    );
    return { ...head, total: Number(total?.visitors ?? 0), data: rows.map((r) => ({ key: r.key, visitors: Number(r.visitors) })) };
  }

  /** Active partitions of the events table or the rollup (every replica's, on a cluster). */
  async partitions(table: string): Promise<string[]> {
    const rows = await this.transport.queryRows<{ p: string }>(this.#schema.partitionsSql, {
      table: this.cluster ? localTable(table) : table,
      ...(this.cluster ? { db: await this.#database() } : {}),
    });
    return rows.map((r) => r.p);
  }

  /** Visible events of an organisation (duplicates collapsed). */
  async countEvents(orgId: string): Promise<number> {
    const [row] = await this.transport.queryRows<{ n: string }>(this.#read(COUNT_EVENTS_SQL), { orgId });
    return Number(row?.n ?? 0);
  }

  /** Physical rows of an organisation, including not-yet-merged duplicates. */
  async countPhysicalRows(orgId: string): Promise<number> {
    const [row] = await this.transport.queryRows<{ n: string }>(this.#read(COUNT_PHYSICAL_ROWS_SQL), { orgId });
    return Number(row?.n ?? 0);
  }

  /** True when the database answers a trivial query. */
  async ping(): Promise<boolean> {
    try {
      await this.transport.queryRows(PING_SQL, {});
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.rollupBackfill.catch(() => undefined);
    return this.transport.close();
  }
}
