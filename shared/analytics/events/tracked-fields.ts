// Invariant: each tracking bit names the event fields a visit recorded under it does not keep;
// `anonymous` (a Do-Not-Track visit of an organisation that honours it) nulls every field read from
// the visitor. Link fields, the event type, click source and time are always kept, so counts and
// every link-side breakdown stay exact.
import { TRACKING_BITS } from '../model/tracking.ts';
import type { EnrichedField, HitField, TextField } from './event-schema.ts';

type VisitorField = EnrichedField | Extract<HitField, 'referrer'>;

const REFERRER: readonly VisitorField[] = ['referrer', 'referrerDomain'];
const USER_AGENT: readonly VisitorField[] = ['browserName', 'browserVersion', 'osName', 'osVersion', 'deviceType', 'deviceBrand', 'deviceModel'];
const CITY: readonly VisitorField[] = ['city', 'region'];
const COUNTRY: readonly VisitorField[] = ['country', 'countryCode'];

/** The fields each bit nulls. */
export const TRACKING_MASKED: ReadonlyArray<readonly [bit: number, fields: readonly VisitorField[]]> = [
  [TRACKING_BITS.referrer, REFERRER],
  [TRACKING_BITS.userAgent, USER_AGENT],
  [TRACKING_BITS.city, CITY],
  [TRACKING_BITS.country, COUNTRY],
  [TRACKING_BITS.anonymous, [...REFERRER, ...USER_AGENT, ...CITY, ...COUNTRY, 'botCategory']],
];

/** The fields a visit recorded under `mask` keeps null. */
export function maskedFields(mask: number): Set<TextField> {
  const out = new Set<TextField>();
  for (const [bit, fields] of TRACKING_MASKED) if ((mask & bit) !== 0) for (const f of fields) out.add(f);
  return out;
}
