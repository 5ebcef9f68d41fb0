// Invariant: passwords are at least 12 characters, hashed with argon2id at OWASP's parameters
// (19 MiB, 2 passes, 1 lane), verified in constant work whether or not the account exists, and
// never logged or returned.
import { Algorithm, hash, verify } from '@node-rs/argon2';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

const PARAMS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The message for a password that breaks the rules, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

let dummy: Promise<string> | null = null;

/** Whether `password` matches `stored`; with no stored hash, does the same work and answers false. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummy ??= hashPassword('not a real password, only equal work');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
