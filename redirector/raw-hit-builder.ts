// Invariant: a RawHit is built from the request facts, the link and the decision's hit spec
// only, at the moment the answer is decided: eventId is a fresh UUIDv7 and createdAtMicros the
// wall clock in microseconds (millisecond wall time plus the monotonic clock's sub-millisecond
// part). Nothing is parsed here.
import { v7 as uuidv7 } from 'uuid';
import type { RawHit } from '../shared/analytics/raw-hit.ts';
import type { LinkRecord } from './cached-entities.ts';
import type { HitSpec } from './decide-redirect.ts';
import type { RequestFacts } from './request-facts.ts';

export function wallClockMicros(nowMs: number): string {
  const subMs = Math.floor((performance.now() * 1000) % 1000);
  return (BigInt(Math.floor(nowMs)) * 1000n + BigInt(subMs)).toString();
}

export function buildRawHit(link: LinkRecord, facts: RequestFacts, spec: HitSpec, nowMs: number): RawHit {
  return {
    eventId: uuidv7(),
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
