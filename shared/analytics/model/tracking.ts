// Invariant: an organisation's tracking switches decide which visitor facts its events keep, and
// nothing else: every visit is still recorded (counts stay exact), redirected and rule-matched as
// before. The switches compile to a bit mask once per organisation load; a click ORs in nothing
// but the Do-Not-Track verdict, and the event batch nulls the masked fields (TRACKING_MASKED).
// The defaults record everything and ignore DNT, as before the switches existed. Browser-safe.
export const GEO_PRECISIONS = ['city', 'country', 'none'] as const;
export type GeoPrecision = (typeof GEO_PRECISIONS)[number];

export interface TrackingSettings {
  /** Keep the referrer and its domain. */
  referrer: boolean;
  /** Keep the browser, OS and device read from the User-Agent (the bot category is always kept). */
  userAgent: boolean;
  /** How much of the visitor's place to keep: city and region, country only, or nothing. */
  geo: GeoPrecision;
  /** Honour `DNT: 1` and `Sec-GPC: 1`: such a visit is recorded with every visitor field null. */
  dnt: boolean;
}

export const DEFAULT_TRACKING: Readonly<TrackingSettings> = Object.freeze({ referrer: true, userAgent: true, geo: 'city', dnt: false });

/** The bits of a tracking mask: each names fields the event does not keep. */
export const TRACKING_BITS = {
  referrer: 1,
  userAgent: 2,
  city: 4,
  country: 8,
  /** A DNT / Sec-GPC visit of an organisation that honours it: every visitor field null. */
  anonymous: 16,
  /** The organisation honours DNT (a click turns it into `anonymous` when the visitor asks). */
  honoursDnt: 32,
} as const;

/** The organisation's mask, before the visit's own DNT verdict. */
export function trackingMask(t: TrackingSettings): number {
  const B = TRACKING_BITS;
  return (
    (t.referrer ? 0 : B.referrer) |
    (t.userAgent ? 0 : B.userAgent) |
    (t.geo === 'city' ? 0 : B.city) |
    (t.geo === 'none' ? B.country : 0) |
    (t.dnt ? B.honoursDnt : 0)
  );
}

/** The mask one visit is recorded under: the organisation's, made anonymous when it honours the visitor's DNT. */
export function visitMask(orgMask: number, doNotTrack: boolean): number {
  return doNotTrack && (orgMask & TRACKING_BITS.honoursDnt) !== 0 ? orgMask | TRACKING_BITS.anonymous : orgMask;
}

/** True when `value` is a DNT or Sec-GPC header asking not to be tracked. */
export const asksNotToTrack = (dnt: string, secGpc: string): boolean => dnt === '1' || secGpc === '1';
