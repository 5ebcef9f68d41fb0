// Invariant: HitColumns hold queued hits the way the write buffer keeps them: one array per stored
// fact (HIT_FIELDS, keyed like the records) plus the two facts only enrichment reads (User-Agent,
// IP), every array `rows` long, row i of every array belonging to the same hit. A hit is copied
// into the arrays as it is pushed, so no object per click outlives its request (the young
// generation collects it; only the strings it shared stay). The stored facts pass to the batch's
// EventColumns as they are: the arrays are handed over, not copied.
import type { EventColumns } from './event-columns.ts';
import { ENRICHED_FIELDS, HIT_FIELDS, recordKey, type HitField, type RecordKey } from './event-schema.ts';
import type { RawHit } from './raw-hit.ts';

export type HitKey = RecordKey<HitField>;

export const HIT_KEYS: readonly HitKey[] = HIT_FIELDS.map((k) => recordKey(k));

export interface HitColumns {
  rows: number;
  readonly facts: Readonly<Record<HitKey, (string | null)[]>>;
  readonly userAgent: (string | null)[];
  readonly ip: (string | null)[];
}

export function emptyHitColumns(): HitColumns {
  return { rows: 0, facts: Object.fromEntries(HIT_KEYS.map((k) => [k, []])) as unknown as Record<HitKey, (string | null)[]>, userAgent: [], ip: [] };
}

export function appendHit(c: HitColumns, hit: RawHit): void {
  const facts = c.facts;
  for (const k of HIT_KEYS) facts[k].push(hit[k]);
  c.userAgent.push(hit.userAgent);
  c.ip.push(hit.ip);
  c.rows++;
}

export function hitColumnsOf(hits: readonly RawHit[]): HitColumns {
  const c = emptyHitColumns();
  for (const h of hits) appendHit(c, h);
  return c;
}

/** Removes the first `n` rows from `c` and returns them (the whole arrays when `n` covers them). */
export function takeHits(c: HitColumns, n: number): HitColumns {
  const take = (a: (string | null)[]): (string | null)[] => a.splice(0, n);
  const facts = Object.fromEntries(HIT_KEYS.map((k) => [k, take(c.facts[k])])) as unknown as Record<HitKey, (string | null)[]>;
  const out: HitColumns = { rows: Math.min(n, c.rows), facts, userAgent: take(c.userAgent), ip: take(c.ip) };
  c.rows -= out.rows;
  return out;
}

/** The batch's events: the hits' facts (the same arrays) and empty enrichment columns to fill. */
export function eventColumnsFor(hits: HitColumns): EventColumns {
  const values: Record<string, (string | null)[]> = { ...hits.facts };
  for (const k of ENRICHED_FIELDS) values[k] = [];
  return { rows: hits.rows, values: values as EventColumns['values'] };
}
