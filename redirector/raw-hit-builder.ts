// Invariant: a RawHit is built from the link, the request facts, the decision's hit spec and the
// organisation's tracking mask only, at the moment the answer is decided, and holds nothing that
// needs formatting: the link itself (its organisation, id, code and UTM tags are read when the
// hit's batch is written), the facts as received, the visit's tracking mask (the organisation's,
// made anonymous when it honours the visitor's Do-Not-Track), and the click time in microseconds
// (millisecond wall time plus the monotonic clock's sub-millisecond part). The event id is minted
// with its batch, from that millisecond.
import type { RawHit } from '../shared/analytics/events/raw-hit.ts';
import type { Link } from '../shared/links/link.ts';
import type { HitSpec } from '../shared/redirects/decide-redirect.ts';
import type { RequestFacts } from '../shared/redirects/request-facts.ts';
import { visitMask } from '../shared/analytics/model/tracking.ts';

/** Microseconds since the epoch of the wall-clock millisecond `nowMs`: sub-millisecond digits from the monotonic clock. */
export function clickMicros(nowMs: number): number {
  return Math.floor(nowMs) * 1000 + (Math.floor(performance.now() * 1000) % 1000);
}

export function buildRawHit(link: Link, facts: RequestFacts, spec: HitSpec, orgTrackingMask: number, nowMs: number): RawHit {
  return {
    link,
    eventType: spec.eventType,
    clickSource: spec.clickSource,
    referrer: facts.referrer,
    userAgent: facts.userAgent === '' ? null : facts.userAgent,
    ip: facts.ip,
    tracking: visitMask(orgTrackingMask, facts.doNotTrack),
    clickedAtMicros: clickMicros(nowMs),
  };
}
