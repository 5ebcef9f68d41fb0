// Invariant: a RawHit is built from the link, the request facts, the decision's hit spec and the
// organisation's tracking mask and time zone only, at the moment the answer is decided, and holds
// nothing that needs formatting: the link itself (its organisation, id, code and UTM tags are read
// when the hit's batch is written), the facts as received, the visit's tracking mask (the
// organisation's, made anonymous when it honours the visitor's Do-Not-Track), the organisation's
// time zone (a reference to its string), and the click time in microseconds (millisecond wall
// time plus the monotonic clock's sub-millisecond part). The event id is minted with its batch,
// from that millisecond.
import type { RawHit } from '../shared/analytics/events/raw-hit.ts';
import type { Link } from '../shared/links/link.ts';
import type { HitSpec } from '../shared/redirects/decide-redirect.ts';
import type { RequestFacts } from '../shared/redirects/request-facts.ts';
import { visitMask } from '../shared/analytics/model/tracking.ts';
import type { Organization } from '../shared/orgs/organization.ts';

/** Microseconds since the epoch of the wall-clock millisecond `nowMs`: sub-millisecond digits from the monotonic clock. */
export function clickMicros(nowMs: number): number {
  return Math.floor(nowMs) * 1000 + (Math.floor(performance.now() * 1000) % 1000);
}

/** What a hit reads from its organisation (null where none is known: every field kept, UTC). */
export type HitOrg = Pick<Organization, 'trackingMask' | 'timezone'> | null;

export function buildRawHit(link: Link, facts: RequestFacts, spec: HitSpec, org: HitOrg, nowMs: number): RawHit {
  return {
    link,
    eventType: spec.eventType,
    clickSource: spec.clickSource,
    referrer: facts.referrer,
    userAgent: facts.userAgent === '' ? null : facts.userAgent,
    ip: facts.ip,
    tracking: org === null ? 0 : visitMask(org.trackingMask, facts.doNotTrack),
    timeZone: org === null ? 'UTC' : org.timezone,
    clickedAtMicros: clickMicros(nowMs),
  };
}
