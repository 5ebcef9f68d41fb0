// Invariant: timestamps travel as strings with microsecond precision and are never round-tripped
// through a JS Date. Output follows Java's Instant.toString(): UTC, trailing Z, the fraction in
// groups of three digits, none when it is zero.

const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:\+00(?::?00)?|Z)?$/;

/** Formats a fraction of up to 6 digits Java-style: '' | '.123' | '.123456'. */
function javaFraction(digits: string | undefined): string {
  const micros = (digits ?? '').padEnd(6, '0');
  if (/^0*$/.test(micros)) return '';
  return micros.endsWith('000') ? `.${micros.slice(0, 3)}` : `.${micros}`;
}

/** Converts Postgres' text form of a UTC timestamptz ('2026-01-02 03:04:05.1234+00') to an ISO instant. */
export function formatPgInstant(value: string): string {
  const m = PG_TIMESTAMP.exec(value);
  if (!m) throw new Error(`unexpected timestamp text '${value}' (is the session TimeZone UTC?)`);
  return `${m[1]}T${m[2]}${javaFraction(m[3])}Z`;
}

/** Formats microseconds since the Unix epoch as an ISO instant. */
export function formatMicros(micros: bigint): string {
  const ms = micros / 1000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return `${base}${javaFraction(frac.toString().padStart(6, '0'))}Z`;
}

/**
 * The instants the analytics store can hold (ClickHouse DateTime64: 1900-01-01 to 2299-12-31,
 * UTC). A query position outside it is refused, never passed on to wrap or overflow.
 */
export const MIN_STORABLE_MICROS = BigInt(Date.UTC(1900, 0, 1)) * 1000n;
export const MAX_STORABLE_MICROS = BigInt(Date.UTC(2300, 0, 1)) * 1000n - 1n;
export const STORABLE_RANGE_TEXT = '1900-01-01 to 2299-12-31';

export function isStorableMicros(micros: bigint): boolean {
  return micros >= MIN_STORABLE_MICROS && micros <= MAX_STORABLE_MICROS;
}

const INSTANT_IN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * Parses `…Z`, `…±hh:mm` or a zone-less `YYYY-MM-DDTHH:MM:SS[.ffffff]` (meaning UTC) into
 * microseconds since the epoch. Returns null when the text is not such an instant.
 */
export function parseInstantMicros(text: string): bigint | null {
  const m = INSTANT_IN.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  // Date.UTC maps years 0–99 to 1900–1999: a year that does not come back is not taken.
  if (
    Number.isNaN(ms) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  let offsetMinutes = 0;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  const micros = BigInt((frac ?? '').padEnd(6, '0').slice(0, 6) || '0');
  return (BigInt(ms) - BigInt(offsetMinutes) * 60_000n) * 1000n + micros;
}

/** Microseconds since the epoch, from a clock in milliseconds with a sub-ms counter. */
export function nowMicros(clock: () => number = Date.now): bigint {
  return BigInt(Math.round(clock() * 1000));
}
