// Invariant: a retention is a whole number of days from 1 to MAX_RETENTION_DAYS, or none (kept for
// good); the setting, the organisation's override and the sweep read the bound from here.
// Browser-safe.
export const MAX_RETENTION_DAYS = 36_500;

export const isRetentionDays = (days: number): boolean => Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS;

/** Days from text: empty (after trimming) is null, whole days from 1 to MAX_RETENTION_DAYS a number, anything else undefined. */
export function parseRetentionDays(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  const days = Number(t);
  return /^\d+$/.test(t) && isRetentionDays(days) ? days : undefined;
}
