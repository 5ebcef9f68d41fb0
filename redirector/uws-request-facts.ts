// Invariant: the facts of a uWS request are copied out of it in the handler, before anything can
// wait, each header bounded as it is read: a header over MAX_HEADER_LENGTH makes no facts (the
// request is answered 431); User-Agent, Referer, Accept-Language and the query are cut before anything parses, memoises or
// records them; an invalid Host reads as no host. The client address alone is read later, when
// first asked for (a recorded hit, a QR image), while the response is open; asked for after it
// closed, it reads as unknown (null) instead of throwing. A request answered after a load watches
// for its client hanging up (aborted) from the moment it starts waiting.
import type uWS from 'uWebSockets.js';
import type { BotCategory } from '../shared/analytics/model/event-values.ts';
import { asksNotToTrack } from '../shared/analytics/model/tracking.ts';
import { normalizeHost } from '../shared/domains/host-name.ts';
import { ipv4TextOfBytes } from '../shared/net/ipv4.ts';
import { clientAddressChooser, type ClientAddressChooser, type TrustProxy } from '../shared/net/trusted-proxies.ts';
import { userAgentVerdict } from '../shared/redirects/crawler-detection.ts';
import { queryHasQr, type RequestFacts } from '../shared/redirects/request-facts.ts';
import { MAX_ACCEPT_LANGUAGE_LENGTH, MAX_QUERY_LENGTH } from '../shared/redirects/visitor.ts';

export type Method = 'GET' | 'HEAD';

/** A header the redirector reads that is longer than this (characters) is answered 431. */
const MAX_HEADER_LENGTH = 8 * 1024;
/** User-Agent and Referer are cut to these lengths before they are parsed, memoised or recorded. */
const MAX_USER_AGENT_LENGTH = 512;
const MAX_REFERRER_LENGTH = 2_048;
/** Sec-Fetch-Dest/-Mode values are short tokens ("document", "navigate"). */
const MAX_FETCH_METADATA_LENGTH = 32;

/**
 * Header names read, as short constant strings: uWS takes a one-byte string at least as cheaply
 * as a byte array (for which it takes a reference on the array's backing store per call).
 */
const R = {
  host: 'host',
  accept: 'accept',
  userAgent: 'user-agent',
  referer: 'referer',
  secFetchDest: 'sec-fetch-dest',
  secFetchMode: 'sec-fetch-mode',
  acceptLanguage: 'accept-language',
  cookie: 'cookie',
  xForwardedFor: 'x-forwarded-for',
  dnt: 'dnt',
  secGpc: 'sec-gpc',
} as const;

const cutHeader = (value: string, max: number): string => (value.length > max ? value.slice(0, max) : value);

/** The peer address as text; IPv4 and IPv4-mapped addresses are formatted from the raw bytes. */
function remoteAddress(res: uWS.HttpResponse): string | null {
  const v4 = ipv4TextOfBytes(new Uint8Array(res.getRemoteAddress()));
  if (v4 !== null) return v4;
  const text = Buffer.from(res.getRemoteAddressAsText()).toString();
  return text === '' ? null : text;
}

/**
 * The facts of one uWS request. Reading the peer address makes uWS copy it into a new
 * ArrayBuffer, which costs more than an unknown code's whole answer, and it cannot change while
 * the connection lives: so it is read once, on demand.
 */
export class UwsRequestFacts implements RequestFacts {
  aborted = false;
  #watching = false;
  #ip: string | null | undefined = undefined;
  readonly #res: uWS.HttpResponse;
  readonly #forwardedFor: string;
  readonly #chooser: ClientAddressChooser;

  constructor(
    readonly method: Method,
    readonly host: string,
    readonly qr: boolean,
    readonly accept: string,
    readonly userAgent: string,
    readonly bot: BotCategory | null,
    readonly referrer: string | null,
    readonly secFetchDest: string,
    readonly secFetchMode: string,
    readonly acceptLanguage: string,
    readonly doNotTrack: boolean,
    readonly query: string,
    /** The Cookie header (a password-protected link's cookie is read from it). */
    readonly cookie: string,
    res: uWS.HttpResponse,
    forwardedFor: string,
    chooser: ClientAddressChooser,
  ) {
    this.#res = res;
    this.#forwardedFor = forwardedFor;
    this.#chooser = chooser;
  }

  get ip(): string | null {
    if (this.#ip === undefined) {
      try {
        this.#ip = this.#chooser.chooseReading(this.#res, remoteAddress, this.#forwardedFor);
      } catch {
        this.#ip = null;
      }
    }
    return this.#ip;
  }

  /** Sets `aborted` when the client hangs up; call before the answer waits for anything (uWS requires it). */
  watchAbort(): void {
    if (this.#watching) return;
    this.#watching = true;
    this.#res.onAborted(() => {
      this.aborted = true;
    });
  }
}

/** Reads request facts with one trusted-proxy rule and a memo of the last Host seen (nearly every request repeats it). */
export class UwsFactsReader {
  readonly #chooser: ClientAddressChooser;
  #lastRawHost = '';
  #lastHost = normalizeHost('');

  constructor(trustProxy: TrustProxy) {
    this.#chooser = clientAddressChooser(trustProxy);
  }

  /** The request's facts, or null when a header it reads exceeds MAX_HEADER_LENGTH (answered 431). */
  read(res: uWS.HttpResponse, req: uWS.HttpRequest, method: Method): UwsRequestFacts | null {
    const host = req.getHeader(R.host);
    const accept = req.getHeader(R.accept);
    const userAgent = req.getHeader(R.userAgent);
    const referrer = req.getHeader(R.referer);
    const secFetchDest = req.getHeader(R.secFetchDest);
    const secFetchMode = req.getHeader(R.secFetchMode);
    const xff = this.#chooser.readsForwardedFor ? req.getHeader(R.xForwardedFor) : '';
    const acceptLanguage = req.getHeader(R.acceptLanguage);
    const cookie = req.getHeader(R.cookie);
    const doNotTrack = asksNotToTrack(req.getHeader(R.dnt), req.getHeader(R.secGpc));
    const query = req.getQuery() ?? '';
    if (
      host.length > MAX_HEADER_LENGTH ||
      accept.length > MAX_HEADER_LENGTH ||
      userAgent.length > MAX_HEADER_LENGTH ||
      referrer.length > MAX_HEADER_LENGTH ||
      secFetchDest.length > MAX_HEADER_LENGTH ||
      secFetchMode.length > MAX_HEADER_LENGTH ||
      xff.length > MAX_HEADER_LENGTH ||
      cookie.length > MAX_HEADER_LENGTH
    ) {
      return null;
    }
    const ua = userAgentVerdict(cutHeader(userAgent, MAX_USER_AGENT_LENGTH));
    return new UwsRequestFacts(
      method,
      this.#hostOf(host),
      queryHasQr(query),
      accept,
      ua.text,
      ua.bot,
      referrer === '' ? null : cutHeader(referrer, MAX_REFERRER_LENGTH),
      cutHeader(secFetchDest, MAX_FETCH_METADATA_LENGTH),
      cutHeader(secFetchMode, MAX_FETCH_METADATA_LENGTH),
      cutHeader(acceptLanguage, MAX_ACCEPT_LANGUAGE_LENGTH),
      doNotTrack,
      cutHeader(query, MAX_QUERY_LENGTH),
      cookie,
      res,
      xff,
      this.#chooser,
    );
  }

  #hostOf(raw: string): string {
    if (raw !== this.#lastRawHost) {
      this.#lastHost = normalizeHost(raw);
      this.#lastRawHost = raw;
    }
    return this.#lastHost;
  }
}
