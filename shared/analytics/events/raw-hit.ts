// Invariant: a RawHit is what the redirector knows about one served click or preview at the
// moment it answers, and nothing more: the link it was served for (held, not copied: the event
// reads its organisation, id, code and UTM tags from it), the hit's own facts (type, source,
// referrer), the User-Agent and client address as received, the visit's tracking mask and the
// organisation's time zone, and the click time. Nothing is parsed, formatted or minted here: the event id (a UUIDv7 of the click's
// millisecond), the enrichment (User-Agent, geo, referrer domain) and every text form are made
// later, in batches, off the redirect path. Every served click/preview yields exactly one RawHit; HEAD requests and
// errors yield none.
import type { HitFacts, HitLink } from './analytics-event.ts';

export interface RawHit extends HitFacts {
  /** The link the hit was served for (a cached Link satisfies it as it is). */
  link: HitLink;
  userAgent: string | null;
  /** Client IP as the redirector determined it (X-Forwarded-For read only as far as TRUST_PROXY trusts). */
  ip: string | null;
  /** The visit's tracking mask (model/tracking.ts visitMask): 0 keeps every field. */
  tracking: number;
  /** The organisation's time zone (its local day picks the visitor hash's salt). */
  timeZone: string;
  /** Click time in microseconds since the epoch: an integer, exact as a Number until the year 2255. */
  clickedAtMicros: number;
}

/** What every hit sink reports to the redirector's /metrics. */
export interface HitSinkMetrics {
  /** Hits held and not yet stored (or spooled). */
  queueDepth: number;
  /** Latency of the last batch write; null before the first. */
  lastFlushLatencyMs: number | null;
}

/** The port the redirector hands hits to. push() must never block or throw on the hot path. */
export interface HitSink {
  push(hit: RawHit): void;
  metrics(): HitSinkMetrics;
}
