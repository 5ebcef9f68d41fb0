// Invariant: an Invalidation crosses a process boundary only as the JSON this file writes, and
// comes back only through `decodeInvalidation`, which answers null (never throws) for anything
// that is not exactly one of the known kinds with a non-empty string id. Unknown members are
// dropped, so a newer publisher may add fields without breaking older subscribers.
import { z } from 'zod';
import type { Invalidation } from './invalidation-bus.ts';

const id = z.string().min(1).max(1000);

const invalidationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('link'), shortCode: id }),
  z.object({ kind: z.literal('org'), orgId: id }),
  z.object({ kind: z.literal('app'), mobileAppId: id }),
  z.object({ kind: z.literal('domain'), host: id }),
]);

export function encodeInvalidation(message: Invalidation): string {
  // Parsing first keeps stray members (and bad values) off the wire.
  return JSON.stringify(invalidationSchema.parse(message));
}

export function decodeInvalidation(payload: string): Invalidation | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = invalidationSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
