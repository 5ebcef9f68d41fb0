// Invariant: the right password of a protected link earns a cookie that proves it for that link
// only, for 24 h: `<linkId>.<expires, epoch seconds>.<HMAC-SHA256 of linkId, expires and the
// password's hash, base64url>`, keyed by the service's own secret (service_secrets), so it cannot
// be forged, moved to another link, or kept past a password change. It is HttpOnly, SameSite=Lax,
// Secure under https, and scoped to the link's path. Anything else in the Cookie header (malformed,
// expired, another link's) simply does not count: the visitor is asked for the password. A cookie
// value once verified is remembered (bounded LRU) with the password hash it was verified against,
// so a returning visitor costs a map lookup, not an HMAC; a password change or expiry still ends it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Sql } from '../db/sql.ts';

export const PASSWORD_COOKIE = 'sl_pw';
export const PASSWORD_COOKIE_SECONDS = 24 * 3600;
const MAX_COOKIES_CHECKED = 8;
const VERIFIED_REMEMBERED = 10_000;

export async function loadPasswordCookieSecret(sql: Sql): Promise<string> {
  const [row] = await sql<{ value: string }[]>`select value from service_secrets where name = 'link_password_cookie'`;
  if (!row) throw new Error('service_secrets has no link_password_cookie (migration 007 not applied?)');
  return row.value;
}

interface Protected {
  id: string;
  shortCode: string;
  passwordHash: string | null;
}

export class PasswordCookies {
  readonly #secret: string;
  /** Cookie value → the link and password hash it proved, and when it expires (epoch seconds). */
  readonly #verified = new LRUCache<string, { linkId: string; hash: string; expires: number }>({ max: VERIFIED_REMEMBERED });

  constructor(secret: string) {
    this.#secret = secret;
  }

  #mac(link: Protected, expires: number): Buffer {
    return createHmac('sha256', this.#secret)
      .update(`${link.id}.${expires}.${link.passwordHash ?? ''}`)
      .digest();
  }

  /** The Set-Cookie value for the link's right password. */
  setCookie(link: Protected, nowMs: number, secure: boolean): string {
    const expires = Math.floor(nowMs / 1000) + PASSWORD_COOKIE_SECONDS;
    const value = `${link.id}.${expires}.${this.#mac(link, expires).toString('base64url')}`;
    return `${PASSWORD_COOKIE}=${value}; Path=/${encodeURIComponent(link.shortCode)}; Max-Age=${PASSWORD_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** Whether the Cookie header carries a valid, unexpired cookie for this link (and its current password). */
  verify(link: Protected, cookieHeader: string, nowMs: number): boolean {
    if (link.passwordHash === null || cookieHeader === '') return false;
    let from = 0;
    for (let checked = 0; checked < MAX_COOKIES_CHECKED; checked++) {
      const at = cookieHeader.indexOf(`${PASSWORD_COOKIE}=`, from);
      if (at < 0) return false;
      from = at + PASSWORD_COOKIE.length + 1;
      if (at > 0 && cookieHeader[at - 1] !== ' ' && cookieHeader[at - 1] !== ';') continue;
      const end = cookieHeader.indexOf(';', from);
      if (this.#valid(link, cookieHeader.slice(from, end < 0 ? undefined : end).trim(), nowMs)) return true;
    }
    return false;
  }

  #valid(link: Protected, value: string, nowMs: number): boolean {
    const known = this.#verified.get(value);
    if (known !== undefined) return known.linkId === link.id && known.hash === link.passwordHash && known.expires > nowMs / 1000;
    const parts = value.split('.');
    if (parts.length !== 3 || parts[0] !== link.id) return false;
    const expires = Number(parts[1]);
    const now = nowMs / 1000;
    if (!Number.isSafeInteger(expires) || expires <= now || expires > now + PASSWORD_COOKIE_SECONDS + 60) return false;
    const given = Buffer.from(parts[2] ?? '', 'base64url');
    const wanted = this.#mac(link, expires);
    const ok = given.length === wanted.length && timingSafeEqual(given, wanted);
    if (ok) this.#verified.set(value, { linkId: link.id, hash: link.passwordHash ?? '', expires });
    return ok;
  }
}
