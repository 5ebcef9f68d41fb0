// Invariant: a visit's visitor id is the first 64 bits (16 hex digits) of
// HMAC-SHA256(salt of the organisation's local day of the click, organisation ‖ address ‖
// User-Agent), computed in batches off the redirect path, once per distinct (organisation,
// address, User-Agent, local day) of a batch. So one person is one visitor within an
// organisation's local day and a new one the next day, and two organisations never share one. A
// visit gets none (null) when it has no address, when it is a Do-Not-Track visit the organisation
// honours, or when its day's salt cannot be had. The address and the salt stay in memory: only the
// hash is stored, and without the salt (gone after 48 h) it cannot be tied to an address, not
// even by trying every IPv4 address.
import { createHmac } from 'node:crypto';
import type { TextColumn } from '../events/event-batch.ts';
import type { VisitorFacts } from '../events/hit-batch.ts';
import { TRACKING_BITS } from '../model/tracking.ts';
import type { SaltKey, VisitorSaltStore } from './visitor-salts.ts';

const QUARTER_MICROS = 900_000_000;

/**
 * The local day (YYYY-MM-DD) of an instant in a time zone. Every UTC offset in use is a whole
 * number of quarter hours, so the local day is constant within a UTC quarter hour: one answer is
 * kept per zone and quarter, and a batch (seconds of clicks) asks Intl once or twice per zone.
 */
export class LocalDays {
  readonly #formats = new Map<string, Intl.DateTimeFormat>();
  readonly #last = new Map<string, { quarter: number; day: string }>();

  dayOf(timeZone: string, micros: number): string {
    const quarter = Math.floor(micros / QUARTER_MICROS);
    const last = this.#last.get(timeZone);
    if (last !== undefined && last.quarter === quarter) return last.day;
    let format = this.#formats.get(timeZone);
    if (format === undefined) {
      format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
      if (this.#formats.size > 1000) this.#formats.clear();
      this.#formats.set(timeZone, format);
    }
    const day = format.format(new Date(quarter * (QUARTER_MICROS / 1000)));
    this.#last.set(timeZone, { quarter, day });
    return day;
  }
}

/** The visitor id of one visit under its day's salt. */
export function visitorId(salt: Buffer, orgId: string, address: string, userAgent: string): string {
  return createHmac('sha256', salt).update(orgId).update('\0').update(address).update('\0').update(userAgent).digest().toString('hex', 0, 8);
}

export class VisitorIds {
  readonly #days = new LocalDays();
  constructor(private readonly salts: VisitorSaltStore) {}

  /** The visitor column of a batch: row r holds values[index[r]] (index 0: null). */
  async column(f: VisitorFacts): Promise<TextColumn> {
    const index = new Uint32Array(f.rows);
    const keyOf = new Map<string, number>();
    const visits: { org: number; address: string; userAgent: string; salt: number }[] = [];
    const saltOf = new Map<string, number>();
    const saltKeys: SaltKey[] = [];
    for (let r = 0; r < f.rows; r++) {
      const address = f.addresses[f.address[r] as number];
      if (address === null || address === undefined || ((f.tracking[r] as number) & TRACKING_BITS.anonymous) !== 0) continue;
      const org = f.org[r] as number;
      const day = this.#days.dayOf(f.timeZones[f.timeZone[r] as number] as string, f.micros[r] as number);
      const orgDay = `${org}|${day}`;
      let salt = saltOf.get(orgDay);
      if (salt === undefined) {
        salt = saltKeys.length;
        saltOf.set(orgDay, salt);
        saltKeys.push({ orgId: f.orgIds[org] as string, day });
      }
      const key = `${salt}|${f.address[r]}|${f.userAgent[r]}`;
      let visit = keyOf.get(key);
      if (visit === undefined) {
        visit = visits.length;
        keyOf.set(key, visit);
        visits.push({ org, address, userAgent: f.userAgents[f.userAgent[r] as number] ?? '', salt });
      }
      index[r] = visit + 1;
    }
    const salts = saltKeys.length === 0 ? [] : await this.salts.salts(saltKeys);
    const values: (string | null)[] = [null];
    for (const v of visits) {
      const salt = salts[v.salt] ?? null;
      values.push(salt === null ? null : visitorId(salt, f.orgIds[v.org] as string, v.address, v.userAgent));
    }
    return { index, values };
  }
}
