// Invariant: an API key value exists in clear only in the admin CLI's output at creation; the
// database keeps its SHA-256. Keys carry 192 bits of CSPRNG entropy, so a fast hash is the right
// one (no salt or KDF needed against guessing).
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'slk_';

/** Every scope a key can carry. */
export const SCOPES = ['links:read', 'links:write', 'analytics:read', 'analytics:export', 'analytics:delete'] as const;
export type Scope = (typeof SCOPES)[number];
/** What a new key gets unless told otherwise: analytics:delete (purging events) only on request. */
export const DEFAULT_SCOPES: readonly Scope[] = ['links:read', 'links:write', 'analytics:read', 'analytics:export'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Spec: 3 to 100 characters of letters, digits, spaces and `. , _ - ( )`. */
export const KEY_LABEL_PATTERN = /^[\p{L}\p{N} .,_\-()]{3,100}$/u;
