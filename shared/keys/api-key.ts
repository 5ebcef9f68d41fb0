// Invariant: an API key value exists in clear only in the admin CLI's output at creation; the
// database keeps its SHA-256. Keys carry 192 bits of CSPRNG entropy, so a fast hash is the right
// one (no salt or KDF needed against guessing).
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'slk_';

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Spec: 3 to 100 characters of letters, digits, spaces and `. , _ - ( )`. */
export const KEY_LABEL_PATTERN = /^[\p{L}\p{N} .,_\-()]{3,100}$/u;
