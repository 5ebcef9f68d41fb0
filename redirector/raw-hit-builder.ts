// Invariant: a RawHit is built from the request facts, the link and the decision's hit spec
// only, at the moment the answer is decided: eventId is a fresh UUIDv7 (RFC 9562: 48 bits of
// millisecond time, version 7, variant 10, 74 random bits drawn from a pooled CSPRNG buffer: one
// randomFillSync per 256 ids instead of one per id), written from a byte-to-hex table with the
// time part formatted once per millisecond, and createdAtMicros the wall clock in microseconds
// (millisecond wall time plus the monotonic clock's sub-millisecond part). Nothing is parsed here.
import { randomFillSync } from 'node:crypto';
import type { RawHit } from '../shared/analytics/events/raw-hit.ts';
import type { Link } from '../shared/links/link.ts';
import type { HitSpec } from './decide-redirect.ts';
import type { RequestFacts } from './request-facts.ts';

const POOL_IDS = 256;
const POOL = new Uint8Array(16 * POOL_IDS);
/** Fixed 16-byte views over the pool (no allocation per id). */
const VIEWS = Array.from({ length: POOL_IDS }, (_, i) => POOL.subarray(i * 16, i * 16 + 16));
let next = POOL_IDS;

function random16(): Uint8Array {
  if (next >= POOL_IDS) {
    randomFillSync(POOL);
    next = 0;
  }
  return VIEWS[next++] as Uint8Array;
}

const HEX = new Uint8Array(Buffer.from('0123456789abcdef', 'latin1'));
/** The id's text is written here, then read out as one flat string (no rope of 13 pieces to keep). */
const UUID_TEXT = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
/** Offsets in UUID_TEXT of the hex digits after the version digit (3) and of the variant group (4) and the node (12). */
const RAND_A_AT = [15, 16, 17];
const VARIANT_AT = [19, 20, 21, 22];
const NODE_AT = [24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
const TIME_AT = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12];
let uuidMs = -1;

/** A UUIDv7 for the millisecond `ms`, as canonical lower-case text (a flat string). */
export function uuidv7Text(ms: number): string {
  const t = UUID_TEXT;
  if (ms !== uuidMs) {
    uuidMs = ms;
    // 48 bits of milliseconds, most significant digit first.
    let rest = ms;
    for (let i = TIME_AT.length - 1; i >= 0; i--) {
      t[TIME_AT[i] as number] = HEX[rest % 16] as number;
      rest = Math.floor(rest / 16);
    }
  }
  const r = random16();
  // 12 random bits after the version, 62 after the variant (10xx), from the pooled bytes.
  t[RAND_A_AT[0] as number] = HEX[(r[0] as number) & 0x0f] as number;
  t[RAND_A_AT[1] as number] = HEX[(r[1] as number) >> 4] as number;
  t[RAND_A_AT[2] as number] = HEX[(r[1] as number) & 0x0f] as number;
  t[VARIANT_AT[0] as number] = HEX[0x8 | ((r[2] as number) & 0x3)] as number;
  t[VARIANT_AT[1] as number] = HEX[((r[2] as number) >> 2) & 0x0f] as number;
  t[VARIANT_AT[2] as number] = HEX[(r[3] as number) >> 4] as number;
  t[VARIANT_AT[3] as number] = HEX[(r[3] as number) & 0x0f] as number;
  for (let i = 0; i < 6; i++) {
    const byte = r[4 + i] as number;
    t[NODE_AT[2 * i] as number] = HEX[byte >> 4] as number;
    t[NODE_AT[2 * i + 1] as number] = HEX[byte & 0x0f] as number;
  }
  return t.toString('latin1', 0, 36);
}

const MICROS_TEXT = Buffer.alloc(24);
let microsMs = -1;
let msDigits = 0;

/**
 * Microseconds since the epoch as decimal text (a flat string): millisecond wall time (its digits
 * written once per millisecond) plus the monotonic clock's sub-millisecond part as three digits.
 */
export function wallClockMicros(nowMs: number): string {
  const ms = Math.floor(nowMs);
  const sub = Math.floor(performance.now() * 1000) % 1000;
  if (ms < 1) return String(sub);
  if (ms !== microsMs) {
    microsMs = ms;
    msDigits = MICROS_TEXT.write(String(ms), 0, 'latin1');
  }
  MICROS_TEXT[msDigits] = 48 + Math.floor(sub / 100);
  MICROS_TEXT[msDigits + 1] = 48 + (Math.floor(sub / 10) % 10);
  MICROS_TEXT[msDigits + 2] = 48 + (sub % 10);
  return MICROS_TEXT.toString('latin1', 0, msDigits + 3);
}

export function buildRawHit(link: Link, facts: RequestFacts, spec: HitSpec, nowMs: number): RawHit {
  return {
    eventId: uuidv7Text(Math.floor(nowMs)),
    createdAtMicros: wallClockMicros(nowMs),
    orgId: link.orgId,
    shortUrlId: link.id,
    shortCode: link.shortCode,
    eventType: spec.eventType,
    clickSource: spec.clickSource,
    referrer: facts.referrer,
    userAgent: facts.userAgent === '' ? null : facts.userAgent,
    ip: facts.ip,
    utmSource: link.utmSource,
    utmMedium: link.utmMedium,
    utmCampaign: link.utmCampaign,
  };
}
