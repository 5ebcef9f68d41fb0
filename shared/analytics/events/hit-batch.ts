// Invariant: a HitBatch holds queued hits the way the write buffer keeps them: each fact a hit
// shares with others (its link, type, source, referrer, User-Agent, address, time zone) as an
// index into a dictionary of the batch's distinct values, and its click time and tracking mask as
// numbers, in typed arrays that grow by doubling. push() copies a hit in with one Map lookup per
// fact and no allocation (but when an array doubles or a value is new), so no object per click
// outlives its request and each distinct string is kept once (a request's own copy dies young).
// Enrichment works on the distinct values (distinctFacts), once each, and the visitor step on the
// rows' indexes (visitorFacts); toEventBatch() mints the event ids and hands the arrays over as the
// batch's columns without copying a row. Only a batch holding a masked row copies the index of
// each field a mask nulls.
import type { EnrichedFields, HitLink } from './analytics-event.ts';
import { EVENT_ID_BYTES, mintEventIds } from './event-id.ts';
import type { EventBatch, TextColumn } from './event-batch.ts';
import { CLICK_SOURCES, EVENT_TYPES } from '../model/event-values.ts';
import { ENRICHED_FIELDS, EVENT_FIELDS, LINK_FIELDS, type EnrichedField, type TextField } from './event-schema.ts';
import { ipv4Value, Ipv4Ids } from '../../net/ipv4.ts';
import type { RawHit } from './raw-hit.ts';
import { maskedFields } from './tracked-fields.ts';

/** The distinct values of a batch's facts, one list per fact. */
class Dictionary<T> {
  readonly values: T[] = [];
  readonly #ids = new Map<T, number>();

  /** The value's index, adding it when new. */
  id(value: T): number {
    const known = this.#ids.get(value);
    if (known !== undefined) return known;
    const id = this.values.length;
    this.values.push(value);
    this.#ids.set(value, id);
    return id;
  }
}

/** The facts enrichment reads: each distinct value of a batch once. */
export interface DistinctFacts {
  readonly userAgent: readonly (string | null)[];
  readonly address: readonly (string | null)[];
  readonly referrer: readonly (string | null)[];
}

/** The fact each enriched field is computed from. */
export type EnrichmentSource = keyof DistinctFacts;

/**
 * What the visitor step reads: per row, indexes into the batch's distinct organisations,
 * addresses, User-Agents and time zones, the click time and the tracking mask.
 */
export interface VisitorFacts {
  readonly rows: number;
  readonly org: Uint32Array;
  readonly orgIds: readonly string[];
  readonly address: Uint32Array;
  readonly addresses: readonly (string | null)[];
  readonly userAgent: Uint32Array;
  readonly userAgents: readonly (string | null)[];
  readonly timeZone: Uint32Array;
  readonly timeZones: readonly string[];
  readonly micros: Float64Array;
  readonly tracking: Uint8Array;
}

/** Every enriched field's values, one per distinct value of its source fact (same order). */
export type EnrichedValues = { readonly [K in EnrichedField]: readonly EnrichedFields[K][] };

/** Bytes a queued hit costs besides its distinct text: its rows in the typed arrays, with slack for doubling. */
const ROW_BYTES = 64;
/** Bytes a distinct link costs besides its own (cached) object: its dictionary entries. */
const LINK_BYTES = 128;
const INITIAL_ROWS = 256;

export class HitBatch {
  rows = 0;
  /** Approximate bytes held: rows plus each distinct string once (two bytes a character). */
  bytes = 0;
  readonly #links = new Dictionary<HitLink>();
  readonly #referrers = new Dictionary<string | null>();
  readonly #userAgents = new Dictionary<string | null>();
  /** Client addresses: IPv4 ones keyed by value (no string hashing), others (IPv6, none) by text. */
  readonly #addresses = new Dictionary<string | null>();
  readonly #ipv4 = new Ipv4Ids();
  #link: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #eventType: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #clickSource: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #referrer: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #userAgent: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #address: Uint32Array = new Uint32Array(INITIAL_ROWS);
  #micros: Float64Array = new Float64Array(INITIAL_ROWS);
  #tracking: Uint8Array = new Uint8Array(INITIAL_ROWS);
  readonly #timeZones = new Dictionary<string>();
  #timeZone: Uint32Array = new Uint32Array(INITIAL_ROWS);
  /** Every row's tracking mask ORed: 0 while no row is masked. */
  #masks = 0;

  /** Copies one hit in; returns the bytes it added to `bytes`. */
  push(hit: RawHit): number {
    const row = this.rows;
    if (row === this.#micros.length) this.#grow();
    const before = this.bytes;
    this.#link[row] = this.#idOf(this.#links, hit.link, LINK_BYTES);
    // The enums are their own dictionaries: an index, no lookup.
    this.#eventType[row] = EVENT_TYPES.indexOf(hit.eventType);
    this.#clickSource[row] = CLICK_SOURCES.indexOf(hit.clickSource);
    this.#referrer[row] = this.#textId(this.#referrers, hit.referrer);
    this.#userAgent[row] = this.#textId(this.#userAgents, hit.userAgent);
    this.#address[row] = this.#addressId(hit.ip);
    this.#micros[row] = hit.clickedAtMicros;
    this.#timeZone[row] = this.#timeZones.id(hit.timeZone);
    if (hit.tracking !== 0) {
      this.#tracking[row] = hit.tracking;
      this.#masks |= hit.tracking;
    }
    this.rows = row + 1;
    this.bytes += ROW_BYTES;
    return this.bytes - before;
  }

  distinctFacts(): DistinctFacts {
    return { userAgent: this.#userAgents.values, address: this.#addresses.values, referrer: this.#referrers.values };
  }

  visitorFacts(): VisitorFacts {
    const links = this.#links.values;
    const orgs = new Dictionary<string>();
    const orgOfLink = links.map((l) => orgs.id(l.orgId));
    const org = new Uint32Array(this.rows);
    for (let r = 0; r < this.rows; r++) org[r] = orgOfLink[this.#link[r] as number] as number;
    return {
      rows: this.rows,
      org,
      orgIds: orgs.values,
      address: this.#address,
      addresses: this.#addresses.values,
      userAgent: this.#userAgent,
      userAgents: this.#userAgents.values,
      timeZone: this.#timeZone,
      timeZones: this.#timeZones.values,
      micros: this.#micros,
      tracking: this.#tracking,
    };
  }

  /**
   * The batch's events: every text column a dictionary over the facts' distinct values (link
   * fields read from the distinct links, enriched fields from `enriched`), event ids minted now.
   */
  toEventBatch(enriched: EnrichedValues, sourceOf: Readonly<Record<EnrichedField, EnrichmentSource>>, visitors?: TextColumn): EventBatch {
    const rows = this.rows;
    const links = this.#links.values;
    const text: Partial<Record<TextField, TextColumn>> = {
      eventType: { index: this.#eventType, values: EVENT_TYPES },
      clickSource: { index: this.#clickSource, values: CLICK_SOURCES },
      referrer: { index: this.#referrer, values: this.#referrers.values },
    };
    for (const k of LINK_FIELDS) {
      const member = EVENT_FIELDS[k].linkKey;
      text[k] = { index: this.#link, values: links.map((l) => l[member]) };
    }
    const indexOf: Readonly<Record<EnrichmentSource, Uint32Array>> = { userAgent: this.#userAgent, address: this.#address, referrer: this.#referrer };
    for (const k of ENRICHED_FIELDS) text[k] = { index: indexOf[sourceOf[k]], values: enriched[k] };
    text.visitorId = visitors ?? { index: new Uint32Array(rows), values: [null] };
    if (this.#masks !== 0) this.#applyTracking(text as Record<TextField, TextColumn>, rows);
    const eventIds = new Uint8Array(rows * EVENT_ID_BYTES);
    const createdAtMicros = this.#micros.subarray(0, rows);
    mintEventIds(createdAtMicros, rows, eventIds);
    return { rows, eventIds, createdAtMicros, text: text as Record<TextField, TextColumn> };
  }

  /** Points each masked row of each field its mask nulls at a null appended to the field's values. */
  #applyTracking(text: Record<TextField, TextColumn>, rows: number): void {
    const masks = this.#tracking;
    const fieldsOf = new Map<number, Set<TextField>>();
    for (const k of maskedFields(this.#masks)) {
      const column = text[k];
      const values = [...column.values, null];
      const nullId = values.length - 1;
      const index = column.index.slice(0, rows);
      for (let r = 0; r < rows; r++) {
        const mask = masks[r] as number;
        if (mask === 0) continue;
        let fields = fieldsOf.get(mask);
        if (fields === undefined) {
          fields = maskedFields(mask);
          fieldsOf.set(mask, fields);
        }
        if (fields.has(k)) index[r] = nullId;
      }
      text[k] = { index, values };
    }
  }

  #idOf<T>(d: Dictionary<T>, value: T, bytes: number): number {
    const n = d.values.length;
    const id = d.id(value);
    if (id === n) this.bytes += bytes;
    return id;
  }

  #textId(d: Dictionary<string | null>, value: string | null): number {
    const n = d.values.length;
    const id = d.id(value);
    if (id === n && value !== null) this.bytes += 2 * value.length;
    return id;
  }

  #addressId(ip: string | null): number {
    const v4 = ip === null ? -1 : ipv4Value(ip);
    if (v4 < 0) return this.#textId(this.#addresses, ip);
    const values = this.#addresses.values;
    const id = this.#ipv4.idOf(v4, values.length);
    if (id === values.length) {
      values.push(ip);
      this.bytes += 2 * (ip as string).length;
    }
    return id;
  }

  #grow(): void {
    const size = 2 * this.#micros.length;
    const grown = (a: Uint32Array): Uint32Array => {
      const b = new Uint32Array(size);
      b.set(a);
      return b;
    };
    this.#link = grown(this.#link);
    this.#eventType = grown(this.#eventType);
    this.#clickSource = grown(this.#clickSource);
    this.#referrer = grown(this.#referrer);
    this.#userAgent = grown(this.#userAgent);
    this.#address = grown(this.#address);
    const micros = new Float64Array(size);
    micros.set(this.#micros);
    this.#micros = micros;
    this.#timeZone = grown(this.#timeZone);
    const tracking = new Uint8Array(size);
    tracking.set(this.#tracking);
    this.#tracking = tracking;
  }
}
