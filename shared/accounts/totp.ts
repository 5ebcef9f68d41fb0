// Invariant: TOTP is RFC 6238 with SHA-1, 6 digits, 30 s steps and ±1 step of drift; a code is
// accepted at most once (the step it matched must be later than the last accepted one, checked
// and recorded in one UPDATE, so two concurrent uses of one code cannot both pass).
import { Secret, TOTP } from 'otpauth';
import type { Sql } from '../db/database.ts';

const PERIOD = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = 'shortlink'): TOTP {
  return new TOTP({ issuer: 'shortlink', label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: PERIOD });
}

export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/** The time step the code matches (within ±1 step of now), or null. */
export function matchingStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD) + delta;
}

/** Accepts a code of the user's enabled secret once; false when wrong or already used. */
export async function acceptTotp(sql: Sql, userId: string, secret: string, code: string, nowMs: number): Promise<boolean> {
  const step = matchingStep(secret, code.trim(), nowMs);
  if (step === null) return false;
  const rows = await sql`
    update users set totp_last_step = ${step}
    where id = ${userId} and (totp_last_step is null or totp_last_step < ${step}) returning id`;
  return rows.length === 1;
}

/** The code a device shows at `nowMs` (tests and the enrolment check). */
export function totpCode(secret: string, nowMs: number): string {
  return totp(secret).generate({ timestamp: nowMs });
}
