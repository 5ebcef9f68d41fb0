// Invariant: a browse cursor is opaque to clients and names exactly one position in browse order:
// the (createdAt microseconds, eventId) of the last event returned, as base64url of a JSON pair.
// Decoding anything else, or a position outside the store's time range, yields null, never a guess.
import { isUuid } from '../../ids/model/uuid.ts';
import { isStorableMicros } from '../../time/instant.ts';

export interface BrowsePosition {
  createdAtMicros: bigint;
  eventId: string;
}

export function encodeBrowseCursor(p: BrowsePosition): string {
  return Buffer.from(JSON.stringify([p.createdAtMicros.toString(), p.eventId]), 'utf8').toString('base64url');
}

export function decodeBrowseCursor(text: string): BrowsePosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length > 200) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [micros, eventId] = value as unknown[];
  if (typeof micros !== 'string' || !/^-?\d{1,19}$/.test(micros) || typeof eventId !== 'string' || !isUuid(eventId)) return null;
  const createdAtMicros = BigInt(micros);
  // A position no stored event can have (beyond the store's time range, or int64) is not a cursor we issued.
  if (!isStorableMicros(createdAtMicros)) return null;
  return { createdAtMicros, eventId: eventId.toLowerCase() };
}
