// Invariant: a visit's visitor id is the first 64 bits (16 hex digits) of
// HMAC-SHA256(salt of the organisation's local day of the click, organisation ‖ address ‖
// User-Agent), computed in batches off the redirect path, once per distinct (organisation,
// address, User-Agent, local day) of a batch. So one person is one visitor within an
// organisation's local day and a new one the next day, and two organisations never share one. The
// hashing is sliced by time (turn-slices.ts): a batch of new visitors never stalls the loop. A
// visit gets none (null) when it has no address, when it is a Do-Not-Track visit the organisation
// honours, or when its day's salt cannot be had. The address and the salt stay in memory: only the
// hash is stored, and without the salt (gone after 48 h) it cannot be tied to an address, not
// even by trying every IPv4 address.
import { hash } from 'node:crypto';
import type { TextColumn } from '../events/event-batch.ts';
import type { VisitorFacts } from '../events/hit-batch.ts';
import { TRACKING_BITS } from '../model/tracking.ts';
import { TurnSlices } from './turn-slices.ts';
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

/**
 * HMAC-SHA256 under one salt, as two one-shot SHA-256 hashes over the precomputed key pads
 * (RFC 2104): the same digest as createHmac, at less than half its cost per visitor (no Hmac
 * object per call; bench/README.md).
 */
export class VisitorHasher {
  readonly #ipad = Buffer.alloc(64, 0x36);
  readonly #opad = Buffer.alloc(64, 0x5c);

  constructor(salt: Buffer) {
    if (salt.length > 64) throw new Error('a visitor salt is at most 64 bytes');
    for (let i = 0; i < salt.length; i++) {
      this.#ipad[i] = (this.#ipad[i] as number) ^ (salt[i] as number);
      this.#opad[i] = (this.#opad[i] as number) ^ (salt[i] as number);
    }
  }

  /** The visitor id: the first 64 bits of the HMAC, as 16 hex digits. */
  id(orgId: string, address: string, userAgent: string): string {
    const inner = hash('sha256', Buffer.concat([this.#ipad, Buffer.from(`${orgId}\0${address}\0${userAgent}`)]), 'buffer');
    return hash('sha256', Buffer.concat([this.#opad, inner]), 'buffer').toString('hex', 0, 8);
  }
}

/** The visitor id of one visit under its day's salt. */
export function visitorId(salt: Buffer, orgId: string, address: string, userAgent: string): string {
  return new VisitorHasher(salt).id(orgId, address, userAgent);
}

export class VisitorIds {
  readonly #days = new LocalDays();
  constructor(private readonly salts: VisitorSaltStore) {}

  /** The visitor column of a batch: row r holds values[index[r]] (index 0: null). */
  async column(f: VisitorFacts): Promise<TextColumn> {
    const index = new Uint32Array(f.rows);
    // Per (organisation, time zone): the quarter hour last seen and its salt's index, so a row
    // finds its day's salt without building a key (the day changes only at a quarter hour).
    const lastQuarter = new Map<number, number>();
    const lastSalt = new Map<number, number>();
    const saltOf = new Map<string, number>();
    const saltKeys: SaltKey[] = [];
    /** Per salt: a visit's index by address and User-Agent (address × distinct User-Agents + User-Agent). */
    const visitsOf: Map<number, number>[] = [];
    const visits: { org: number; address: number; userAgent: number; salt: number }[] = [];
    const uaCount = f.userAgents.length;
    const zones = f.timeZones.length;
    for (let r = 0; r < f.rows; r++) {
      const address = f.address[r] as number;
      if (f.addresses[address] == null || ((f.tracking[r] as number) & TRACKING_BITS.anonymous) !== 0) continue;
      const org = f.org[r] as number;
      const zone = f.timeZone[r] as number;
      const micros = f.micros[r] as number;
      const orgZone = org * zones + zone;
      const quarter = Math.floor(micros / QUARTER_MICROS);
      let salt = lastQuarter.get(orgZone) === quarter ? (lastSalt.get(orgZone) as number) : -1;
      if (salt < 0) {
        const day = this.#days.dayOf(f.timeZones[zone] as string, micros);
        const orgDay = `${org}|${day}`;
        salt = saltOf.get(orgDay) ?? -1;
        if (salt < 0) {
          salt = saltKeys.length;
          saltOf.set(orgDay, salt);
          saltKeys.push({ orgId: f.orgIds[org] as string, day });
          visitsOf.push(new Map());
        }
        lastQuarter.set(orgZone, quarter);
        lastSalt.set(orgZone, salt);
      }
      const userAgent = f.userAgent[r] as number;
      const key = address * uaCount + userAgent;
      const known = visitsOf[salt] as Map<number, number>;
      let visit = known.get(key);
      if (visit === undefined) {
        visit = visits.length;
        known.set(key, visit);
        visits.push({ org, address, userAgent, salt });
      }
      index[r] = visit + 1;
    }
    const salts = saltKeys.length === 0 ? [] : await this.salts.salts(saltKeys);
    const hashers = salts.map((salt) => (salt === null ? null : new VisitorHasher(salt)));
    const values: (string | null)[] = [null];
    const turns = new TurnSlices();
    for (let i = 0; i < visits.length; i++) {
      const v = visits[i] as (typeof visits)[number];
      const hasher = hashers[v.salt] ?? null;
      values.push(hasher === null ? null : hasher.id(f.orgIds[v.org] as string, f.addresses[v.address] as string, f.userAgents[v.userAgent] ?? ''));
      if (turns.due(i)) await turns.next();
    }
    return { index, values };
  }
}
