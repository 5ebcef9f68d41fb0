// Invariant: a shortCode matches ^[a-zA-Z0-9_-]{7,50}$ (checked by one pass over its characters,
// as the redirector checks every request's path), is compared case-sensitively, and is never one
// of the reserved words below (compared case-insensitively). Generated codes are 7 CSPRNG
// characters of [A-Za-z0-9] and are never reserved.
import { randomInt } from 'node:crypto';

export const SHORT_CODE_PATTERN = /^[a-zA-Z0-9_-]{7,50}$/;

/** Paths the service keeps for itself, now or later (documented in README). */
export const RESERVED_SHORT_CODES: readonly string[] = [
  'healthz',
  'metrics',
  'analytics',
  'dashboard',
  'favicon',
  'favicon.ico',
  'robots',
  'robots.txt',
  'openapi',
  'swagger',
  'api-docs',
  'link-external',
  'external',
  'settings',
  'account',
  'billing',
  'signin',
  'signup',
  'logout',
  'password',
  'support',
  'status',
  'sitemap',
  'well-known',
  'static',
  'assets',
  'public',
  'qrcode',
  'preview',
  'readyz',
  'livez',
  'register',
  'shortlink',
  'webhooks',
];

const RESERVED = new Set(RESERVED_SHORT_CODES.map((c) => c.toLowerCase()));

export function isReservedShortCode(code: string): boolean {
  return RESERVED.has(code.toLowerCase());
}

/** SHORT_CODE_PATTERN, without a regular expression per call. */
export function isValidShortCode(code: string): boolean {
  const n = code.length;
  if (n < 7 || n > 50) return false;
  for (let i = 0; i < n; i++) {
    const c = code.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45)) return false;
  }
  return true;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function generateShortCode(length = 7): string {
  for (;;) {
    let code = '';
    for (let i = 0; i < length; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    if (!isReservedShortCode(code)) return code;
  }
}
