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

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let uuidMs = -1;
let uuidMsText = '';

/** A UUIDv7 for the millisecond `ms`, as canonical lower-case text. */
export function uuidv7Text(ms: number): string {
  if (ms !== uuidMs) {
    uuidMs = ms;
    const t = ms.toString(16).padStart(12, '0');
    uuidMsText = `${t.slice(0, 8)}-${t.slice(8, 12)}-7`;
  }
  const r = random16();
  return (
    uuidMsText +
    ((r[0] as number) & 0x0f).toString(16) +
    HEX2[r[1] as number] +
    '-' +
    HEX2[0x80 | ((r[2] as number) & 0x3f)] +
    HEX2[r[3] as number] +
    '-' +
    HEX2[r[4] as number] +
    HEX2[r[5] as number] +
    HEX2[r[6] as number] +
    HEX2[r[7] as number] +
    HEX2[r[8] as number] +
    HEX2[r[9] as number]
  );
}

const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let lastMs = -1;
let lastMsText = '';

/** Microseconds since the epoch as decimal text: the millisecond text (formatted once per ms) + 3 digits. */
export function wallClockMicros(nowMs: number): string {
  const ms = Math.floor(nowMs);
  if (ms !== lastMs) {
    lastMs = ms;
    lastMsText = String(ms);
  }
  return lastMsText + (THREE_DIGITS[Math.floor((performance.now() * 1000) % 1000)] ?? '000');
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
