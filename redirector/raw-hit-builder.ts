// Invariant: a RawHit is built from the request facts, the link and the decision's hit spec
// only, at the moment the answer is decided: eventId is a fresh UUIDv7 (uuid's v7, its 74 random
// bits drawn from a pooled CSPRNG buffer: one randomFillSync per 256 ids instead of one per id)
// and createdAtMicros the wall clock in microseconds (millisecond wall time plus the monotonic
// clock's sub-millisecond part). Nothing is parsed here.
import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
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
    eventId: uuidv7({ random: random16(), msecs: Math.floor(nowMs) }),
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
