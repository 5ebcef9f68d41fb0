// Invariant: every bearer secret of the dashboard (session ids, invite tokens, recovery codes) is
// 128 bits or more from the CSPRNG and is stored only as its SHA-256: a fast hash is the right
// one for values that cannot be guessed (passwords, which can, use argon2id: passwords.ts).
import { createHash, randomBytes, randomInt } from 'node:crypto';

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code: 4 groups of 5 characters (≈ 98 bits), e.g. `k3j9x-…`. */
export function recoveryCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let s = '';
    for (let i = 0; i < 5; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    groups.push(s);
  }
  return groups.join('-');
}

/** A recovery code as typed (case, spaces and dashes ignored), in its stored form. */
export function normalizeRecoveryCode(input: string): string {
  const flat = input.toLowerCase().replace(/[\s-]/g, '');
  return flat.match(/.{1,5}/g)?.join('-') ?? '';
}
