// Invariant: a RawHit is what the redirector knows about one served click or preview at the
// moment it answers: request facts only, no parsing. Enrichment (User-Agent, geo, referrer
// domain) happens later, in batches, off the hot path. Every served click/preview yields exactly
// one RawHit; HEAD requests and errors yield none. Its stored facts are the event schema's hit
// fields (HitFacts: eventId a UUIDv7 minted when the response is decided, createdAtMicros the
// click time in microseconds since the epoch as decimal text).
import type { HitFacts } from './analytics-event.ts';

export interface RawHit extends HitFacts {
  userAgent: string | null;
  /** Client IP as the redirector determined it (X-Forwarded-For read only as far as TRUST_PROXY trusts). */
  ip: string | null;
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
