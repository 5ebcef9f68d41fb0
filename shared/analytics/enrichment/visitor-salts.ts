// Invariant: a visitor salt is 32 random bytes per organisation and local day, made by whoever
// asks first and the same for every process that asks after (Redis SET NX, then GET), and kept
// only in Redis or in this process's memory: in Redis with a TTL of SALT_TTL_SECONDS (48 h), in
// memory for as long at most, never written anywhere else. Once its day is over and its TTL has
// run out nobody, the operator included, has it, so no stored visitor hash can be tied to an
// address again. A salt that cannot be had (Redis down) is null: those visits get no visitor.
import { randomBytes } from 'node:crypto';

/** How long a salt lives: its local day (at most 25 hours) and a margin for late batches. */
export const SALT_TTL_SECONDS = 48 * 3600;
/** Salts one process keeps at most (an organisation's day each). */
export const MAX_CACHED_SALTS = 100_000;

/** A new salt: 32 random bytes. */
export const newSalt = (): Buffer => randomBytes(32);

export interface SaltKey {
  orgId: string;
  /** The organisation's local day, YYYY-MM-DD. */
  day: string;
}

export interface VisitorSaltStore {
  /** The salt of each (organisation, local day), made when missing; null where none can be had. */
  salts(keys: readonly SaltKey[]): Promise<(Buffer | null)[]>;
}

/** A salt held in a process, until `until` (ms). */
export interface HeldSalt {
  salt: Buffer;
  until: number;
}

/** Drops the expired salts of `held`, then the oldest (insertion order) while it is full. */
export function pruneSalts(held: Map<string, HeldSalt>, now: number): void {
  for (const [k, s] of held) if (s.until <= now) held.delete(k);
  for (const k of held.keys()) {
    if (held.size < MAX_CACHED_SALTS) break;
    held.delete(k);
  }
}
