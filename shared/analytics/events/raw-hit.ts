// Invariant: a RawHit is what the redirector knows about one served click or preview at the
// moment it answers: request facts only, no parsing. Enrichment (User-Agent, geo, referrer
// domain) happens later, in batches, off the hot path. Every served click/preview yields exactly
// one RawHit; HEAD requests and errors yield none.

export type EventType = 'CLICK' | 'METADATA_PREVIEW';
export const EVENT_TYPES: readonly EventType[] = ['CLICK', 'METADATA_PREVIEW'];

export type ClickSource = 'DIRECT' | 'QR_CODE' | 'API' | 'EMBED' | 'UNKNOWN';
export const CLICK_SOURCES: readonly ClickSource[] = ['DIRECT', 'QR_CODE', 'API', 'EMBED', 'UNKNOWN'];

export interface RawHit {
  /** UUIDv7, minted when the response is decided. */
  eventId: string;
  /** Click time, microseconds since the Unix epoch, as a decimal string (JSON-safe). */
  createdAtMicros: string;
  orgId: string;
  shortUrlId: string;
  shortCode: string;
  eventType: EventType;
  clickSource: ClickSource;
  referrer: string | null;
  userAgent: string | null;
  /** Client IP as the redirector determined it (X-Forwarded-For only when TRUST_PROXY). */
  ip: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
}

/** The port the redirector hands hits to. It must never block or throw on the hot path. */
export interface HitSink {
  push(hit: RawHit): void;
}
