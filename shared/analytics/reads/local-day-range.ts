// Invariant: a browse range of calendar days [from, to] in an IANA time zone is the half-open
// instant range [first instant of `from` there, first instant of the day after `to` there). The
// first instant of a day is its local midnight, or, where a clock change skips midnight, the
// first local time that exists that day. Calendar dates are validated here and nowhere else.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Days since the epoch of a valid `YYYY-MM-DD` date, or null when the text is not one. */
export function parseCalendarDate(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return ms / DAY_MS;
}

/** Inclusive number of calendar days from `from` to `to` (both valid dates): 2026-01-01..2026-01-31 = 31. */
export function inclusiveDayCount(from: string, to: string): number {
  const a = parseCalendarDate(from);
  const b = parseCalendarDate(to);
  if (a === null || b === null) throw new Error(`invalid calendar date ${from} or ${to}`);
  return b - a + 1;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size > 1000) formatters.clear(); // bounded: one per zone asked for
    formatters.set(timeZone, f);
  }
  return f;
}

/** The local wall clock at `utcMs` in `timeZone`, expressed as if it were UTC milliseconds. */
export function localWallMs(timeZone: string, utcMs: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(utcMs));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Microseconds since the epoch of the first instant of calendar day `dayNumber` (days since the
 * epoch) in `timeZone`: the smallest whole second whose local wall clock is at or after that
 * day's 00:00:00. Offsets lie within ±18 h, so the answer is in [midnight-UTC − 18 h, + 18 h].
 */
export function dayStartMicros(dayNumber: number, timeZone: string): bigint {
  const wallMidnight = dayNumber * DAY_MS;
  let lo = wallMidnight / 1000 - 18 * 3600; // seconds; local wall < midnight here
  let hi = wallMidnight / 1000 + 18 * 3600; // local wall >= midnight here
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localWallMs(timeZone, mid * 1000) >= wallMidnight) hi = mid;
    else lo = mid;
  }
  return BigInt(hi) * 1_000_000n;
}

/** The half-open instant range, in microseconds, of the calendar days [from, to] in `timeZone`. */
export function localDayRangeMicros(from: string, to: string, timeZone: string): { fromMicros: bigint; toMicros: bigint } {
  const a = parseCalendarDate(from);
  const b = parseCalendarDate(to);
  if (a === null || b === null) throw new Error(`invalid calendar date ${from} or ${to}`);
  if (!isValidTimeZone(timeZone)) throw new Error(`unknown time zone ${timeZone}`);
  return { fromMicros: dayStartMicros(a, timeZone), toMicros: dayStartMicros(b + 1, timeZone) };
}
