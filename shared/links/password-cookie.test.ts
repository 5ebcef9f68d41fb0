// Invariant: a password cookie proves the password of its own link only, until it expires or the
// password changes, whether or not its value was verified (and remembered) before; a forged or
// altered value never counts.
import { describe, expect, it } from 'vitest';
import { PASSWORD_COOKIE, PASSWORD_COOKIE_SECONDS, PasswordCookies } from './password-cookie.ts';

const link = { id: '0b7c2f4e-1111-4a2b-9c3d-000000000001', shortCode: 'locked1', passwordHash: '$argon2id$one' };
const other = { ...link, id: '0b7c2f4e-1111-4a2b-9c3d-000000000002', shortCode: 'locked2' };
const now = Date.parse('2026-11-24T12:00:00Z');

const cookieValue = (setCookie: string): string => setCookie.slice(PASSWORD_COOKIE.length + 1, setCookie.indexOf(';'));

describe('PasswordCookies', () => {
  it('verifies its own cookie again and again, and stops at expiry, at a password change, and for another link', () => {
    const cookies = new PasswordCookies('service-secret');
    const value = cookieValue(cookies.setCookie(link, now, false));
    const header = `theme=dark; ${PASSWORD_COOKIE}=${value}`;
    for (let i = 0; i < 3; i++) expect(cookies.verify(link, header, now + i * 1000)).toBe(true); // the first verifies, the rest are remembered
    expect(cookies.verify(link, header, now + PASSWORD_COOKIE_SECONDS * 1000 + 1000)).toBe(false);
    expect(cookies.verify({ ...link, passwordHash: '$argon2id$two' }, header, now)).toBe(false);
    expect(cookies.verify(other, header, now)).toBe(false);
    expect(cookies.verify(link, header, now)).toBe(true);
  });

  it('refuses a forged or altered value, before and after the real one was remembered', () => {
    const cookies = new PasswordCookies('service-secret');
    const value = cookieValue(cookies.setCookie(link, now, false));
    const [id, expires, mac] = value.split('.') as [string, string, string];
    const forged = [
      `${id}.${expires}.${mac.slice(0, -2)}AA`,
      `${id}.${Number(expires) + 3600}.${mac}`,
      `${id}.${expires}.${new PasswordCookies('another-secret').setCookie(link, now, false).split('.')[2]?.split(';')[0]}`,
    ];
    for (const v of forged) expect(cookies.verify(link, `${PASSWORD_COOKIE}=${v}`, now)).toBe(false);
    expect(cookies.verify(link, `${PASSWORD_COOKIE}=${value}`, now)).toBe(true);
    for (const v of forged) expect(cookies.verify(link, `${PASSWORD_COOKIE}=${v}`, now)).toBe(false);
  });
});
