// Invariant: a password form's POST to /:code is answered without recording anything and never
// reveals the destination: the body is read up to MAX_FORM_BYTES (more is 413, the connection
// closed); each try costs a token of the link_password bucket of (address, link), 10 a minute,
// before the password is checked (429 SML005 when empty); the right password answers 303 to the
// link's own path (query kept) with the signed cookie, a wrong one the form again with the problem
// next to the field (JSON clients: 401 SML011). A link that has no password, or whose answer
// comes before the password (archived, expired…), is sent to its own path with 303, where a GET
// gets that answer.
import { verifyPassword } from '../shared/accounts/passwords.ts';
import { errorEnvelope } from '../shared/errors/app-error.ts';
import { passwordRequired, rateLimited, validationFailed } from '../shared/errors/domain-errors.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';
import type { PasswordCookies } from '../shared/links/password-cookie.ts';
import { decideRedirect, passwordAnswer, type HttpAnswer } from '../shared/redirects/decide-redirect.ts';
import { negotiate } from '../shared/redirects/content-negotiation.ts';
import { errorPage } from '../shared/redirects/html-pages.ts';
import type { RedirectService } from './redirect-service.ts';
import type { UwsRequestFacts } from './uws-request-facts.ts';

export const MAX_FORM_BYTES = 4_096;
export const PASSWORD_TRIES_PER_MINUTE = 10;

export interface PasswordFormOptions {
  service: RedirectService;
  cookies: PasswordCookies;
  limiter: RateLimiter;
  secureCookies: boolean;
}

/** What to write back: a status, headers and a body. */
export interface FormReply {
  status: string;
  headers: [string, string][];
  body: string;
}

function replyOf(a: HttpAnswer, extra: [string, string][] = []): FormReply {
  const headers: [string, string][] = [['Cache-Control', 'no-store'], ...extra];
  if (a.contentType !== null) headers.push(['Content-Type', a.contentType]);
  if (a.contentSecurityPolicy !== null) headers.push(['Content-Security-Policy', a.contentSecurityPolicy], ['X-Content-Type-Options', 'nosniff']);
  return { status: a.status, headers, body: a.body };
}

const seeOther = (location: string, extra: [string, string][] = []): FormReply => ({
  status: '303 See Other',
  headers: [['Location', location], ['Cache-Control', 'no-store'], ...extra],
  body: '',
});

/** The answer to an oversized or unreadable form body. */
export function formTooLarge(facts: Pick<UwsRequestFacts, 'accept'>): FormReply {
  const error = validationFailed(`Request body too large; a password form is at most ${MAX_FORM_BYTES} bytes`);
  if (negotiate(facts.accept).prefersHtml) {
    const page = errorPage(413, error.code, error.message, '');
    return {
      status: '413 Payload Too Large',
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Content-Security-Policy', page.csp],
      ],
      body: page.body,
    };
  }
  return { status: '413 Payload Too Large', headers: [['Content-Type', 'application/json']], body: JSON.stringify(errorEnvelope([error.toErrorObject()])) };
}

export class PasswordForm {
  readonly #o: PasswordFormOptions;

  constructor(options: PasswordFormOptions) {
    this.#o = options;
  }

  /** The reply to a password form posted for `shortCode` with this body. */
  async submit(shortCode: string, facts: UwsRequestFacts, body: string): Promise<FormReply> {
    const nowMs = Date.now();
    const input = await this.#o.service.entities({ kind: 'visit', shortCode }, facts);
    const self = `/${encodeURIComponent(shortCode)}${facts.query === '' ? '' : `?${facts.query}`}`;
    const before = decideRedirect(input, facts, nowMs);
    const link = input.link;
    if (before.kind !== 'answer' || before.outcome !== 'password_required' || link === null) {
      return before.kind === 'answer' && before.outcome === 'not_found' ? replyOf(before) : seeOther(self);
    }
    const rate = await this.#o.limiter.consume(`link_password:${facts.ip ?? 'unknown'}:${link.id}`, PASSWORD_TRIES_PER_MINUTE);
    if (!rate.allowed) {
      const error = rateLimited('link_password', PASSWORD_TRIES_PER_MINUTE, rate.retryAfterSeconds);
      const headers: [string, string][] = [['Retry-After', String(rate.retryAfterSeconds)]];
      if (negotiate(facts.accept).prefersHtml) {
        const page = passwordAnswer(shortCode, facts, `Too many wrong tries. Try again in ${rate.retryAfterSeconds} s.`);
        return { ...replyOf(page, headers), status: '429 Too Many Requests' };
      }
      return {
        status: '429 Too Many Requests',
        headers: [...headers, ['Content-Type', 'application/json']],
        body: JSON.stringify(errorEnvelope([error.toErrorObject()])),
      };
    }
    const password = new URLSearchParams(body).get('password') ?? '';
    if (password !== '' && password.length <= 1024 && (await verifyPassword(link.passwordHash, password))) {
      return seeOther(self, [['Set-Cookie', this.#o.cookies.setCookie(link, Date.now(), this.#o.secureCookies)]]);
    }
    if (negotiate(facts.accept).prefersHtml) return replyOf(passwordAnswer(shortCode, facts, 'Wrong password. Try again.'));
    const error = passwordRequired();
    return { status: '401 Unauthorized', headers: [['Content-Type', 'application/json']], body: JSON.stringify(errorEnvelope([error.toErrorObject()])) };
  }
}
