// Invariant: a range preset is a span of whole local calendar days in the organisation's time zone
// ending today there (the API counts whole days): 24 h is yesterday and today by the hour (the
// last 24 hours always inside), 7, 30 and 90 days end today. Pure: `now` comes from the caller.
import { MAX_RANGE_DAYS } from '../../../../shared/analytics/model/dimensions.ts';

export const PRESETS = [
  { id: '24h', label: '24 hours', days: 2 },
  { id: '7d', label: '7 days', days: 7 },
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'];
/** A custom range is at most the API's longest. */
export const MAX_CUSTOM_DAYS = MAX_RANGE_DAYS;

const DAY_MS = 86_400_000;

/** Today's date (YYYY-MM-DD) in `timeZone` at instant `now`. */
export function localToday(timeZone: string, now: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(now));
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function presetRange(id: PresetId, timeZone: string, now: number): { from: string; to: string } {
  const preset = PRESETS.find((p) => p.id === id) ?? PRESETS[1];
  const to = localToday(timeZone, now);
  return { from: addDays(to, -(preset.days - 1)), to };
}
