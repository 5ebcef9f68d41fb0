// Invariant: one uWS app per call, in the current process, and only transport: the uWS router
// sends /healthz, /:code/qr.svg, /:code/qr.png and /:code (GET and HEAD) to thin handlers,
// everything else to a 404 envelope, other methods to 405 (/metrics is served on METRICS_PORT
// only: here it is an unknown code). A handler copies every
// request fact before any await, attaches onAborted before going asynchronous, and writes the
// RedirectService's decision inside cork(). An LRU hit is answered synchronously with no network
// round trip. Each served click or preview hands exactly one RawHit to the sink and (clicks only)
// counts one click, at the moment its answer is written; HEAD and error answers hand off and
// count nothing. drain() stops accepting, answers every request already received (each with
// `Connection: close` from then on), closes connections once they have been idle for a moment,
// and force-closes what is left at the deadline.
import type uWS from 'uWebSockets.js';
import { normalizeHost } from '../shared/domains/host-name.ts';
import { clientAddressChooser, type ClientAddressChooser, type TrustProxy } from '../shared/net/trusted-proxies.ts';
import { canonicalUserAgent } from './crawler-detection.ts';
import { errorEnvelope } from '../shared/errors/app-error.ts';
import { isDependencyUnreachable } from '../shared/errors/dependency-unreachable.ts';
import { dependencyUnavailable, rateLimited } from '../shared/errors/domain-errors.ts';
import { probeListenError } from '../shared/runtime/listen-failure.ts';
import { REDIRECT_CACHE_CONTROL, type Decision, type HttpAnswer, type QrAnswer, type Route } from './decide-redirect.ts';
import type { RedirectorMetrics } from './metrics.ts';
import { QR_CONTENT_TYPES, type QrImage } from './qr-codes.ts';
import { QrRefused, type QrRenderer } from './qr-renderer.ts';
import type { RedirectService } from './redirect-service.ts';
import { queryHasQr, type RequestFacts } from './request-facts.ts';
import { nativeUws } from './uws-native.ts';

export interface RedirectorServerOptions {
  service: RedirectService;
  metrics: RedirectorMetrics;
  /** Draws QR images off the event loop (bounded cache, per-address rate limit). */
  qr: QrRenderer;
  /** QR drawings per client address per minute (for the 429 details). */
  qrRendersPerMinute: number;
  host: string;
  port: number;
  /** Trusted proxies: the client address is the nearest X-Forwarded-For entry that is not one. */
  trustProxy: TrustProxy;
  onError: (err: unknown) => void;
}

export interface ListeningServer {
  port: number;
  /**
   * Stops accepting connections, answers what was received (closing each connection after its
   * answer), and closes the rest once no request arrived for a moment or `deadlineMs` passed.
   */
  drain(deadlineMs: number): Promise<void>;
}

/** Connections with no request for this long during a drain are closed (ms). */
const DRAIN_QUIET_MS = 300;
/**
 * Between closing the listen socket and asking clients to reconnect (ms). The workers of a
 * cluster get SIGTERM together: this lets every sibling close its listen socket first, so a
 * reconnecting client never lands in the accept queue of a socket about to close (which the
 * kernel resets unless net.ipv4.tcp_migrate_req=1).
 */
const DRAIN_LISTEN_SETTLE_MS = 100;
const DRAIN_POLL_MS = 25;

type Method = 'GET' | 'HEAD';

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
  xForwardedFor: 'x-forwarded-for',
} as const;
/** Constant response header names and status lines, encoded once. */
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const H = {
  location: bytes('Location'),
  cacheControl: bytes('Cache-Control'),
  contentType: bytes('Content-Type'),
  csp: bytes('Content-Security-Policy'),
  nosniff: bytes('X-Content-Type-Options'),
};
const CACHE_CONTROL_VALUE = bytes(REDIRECT_CACHE_CONTROL);
const STATUS_302 = '302 Found';
const STATUS_302_BYTES = bytes(STATUS_302);
/** A short code: 1 to 64 of A-Z a-z 0-9 _ - (checked by one pass, no regular expression per request). */
function isShortCode(code: string): boolean {
  const n = code.length;
  if (n === 0 || n > 64) return false;
  for (let i = 0; i < n; i++) {
    const c = code.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45)) return false;
  }
  return true;
}
/** A header the redirector reads that is longer than this (characters) is answered 431. */
export const MAX_HEADER_LENGTH = 8 * 1024;
/** User-Agent and Referer are cut to these lengths before they are parsed, memoised or recorded. */
export const MAX_USER_AGENT_LENGTH = 512;
export const MAX_REFERRER_LENGTH = 2_048;
/** Sec-Fetch-Dest/-Mode values are short tokens ("document", "navigate"). */
const MAX_FETCH_METADATA_LENGTH = 32;

const cutHeader = (value: string, max: number): string => (value.length > max ? value.slice(0, max) : value);

const IPV4_TEXT_CACHE_LIMIT = 10_000;
/** Bounded by entries and so by bytes: a key is a number and a value at most 15 characters. */
const ipv4Text = new Map<number, string>();

function ipv4(a: number, b: number, c: number, d: number): string {
  const key = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  let text = ipv4Text.get(key);
  if (text === undefined) {
    text = `${a}.${b}.${c}.${d}`;
    if (ipv4Text.size >= IPV4_TEXT_CACHE_LIMIT) ipv4Text.clear();
    ipv4Text.set(key, text);
  }
  return text;
}

/** The peer address as text; IPv4 and IPv4-mapped addresses are formatted from the raw bytes. */
function remoteAddress(res: uWS.HttpResponse): string | null {
  const b = new Uint8Array(res.getRemoteAddress());
  if (b.length === 4) return ipv4(b[0] ?? 0, b[1] ?? 0, b[2] ?? 0, b[3] ?? 0);
  if (
    b.length === 16 &&
    b[10] === 0xff &&
    b[11] === 0xff &&
    b[0] === 0 &&
    b[1] === 0 &&
    b[2] === 0 &&
    b[3] === 0 &&
    b[4] === 0 &&
    b[5] === 0 &&
    b[6] === 0 &&
    b[7] === 0 &&
    b[8] === 0 &&
    b[9] === 0
  ) {
    return ipv4(b[12] ?? 0, b[13] ?? 0, b[14] ?? 0, b[15] ?? 0);
  }
  const text = Buffer.from(res.getRemoteAddressAsText()).toString();
  return text === '' ? null : text;
}

/** Ends a HEAD answer; closing the connection needs the explicit form (uWS rejects an undefined length). */
function endHead(res: uWS.HttpResponse, close: boolean): void {
  if (close) res.endWithoutBody(0, true);
  else res.endWithoutBody();
}

function writeAnswer(res: uWS.HttpResponse, a: HttpAnswer, head: boolean, close: boolean): void {
  res.writeStatus(a.status === STATUS_302 ? STATUS_302_BYTES : a.status);
  if (a.location !== null) res.writeHeader(H.location, a.location);
  res.writeHeader(H.cacheControl, CACHE_CONTROL_VALUE);
  if (a.contentType !== null) res.writeHeader(H.contentType, a.contentType);
  if (a.contentSecurityPolicy !== null) {
    res.writeHeader(H.csp, a.contentSecurityPolicy);
    res.writeHeader(H.nosniff, 'nosniff');
  }
  if (head) endHead(res, close);
  else if (a.body === '') res.end('', close);
  else res.end(a.body, close);
}

function writeJson(res: uWS.HttpResponse, status: string, body: string, head: boolean, close: boolean, headers: readonly [string, string][] = []): void {
  res.writeStatus(status).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
  for (const [k, v] of headers) res.writeHeader(k, v);
  if (head) endHead(res, close);
  else res.end(body, close);
}

const HEADERS_TOO_LARGE = '{"errors":[{"code":"VE001","message":"Request header fields too large"}]}';
const INTERNAL_ERROR = '{"errors":[{"code":"SML001","message":"Internal server error"}]}';
/** A link that cannot be loaded because Postgres (or Redis) is down: retry shortly, never a 500. */
const UNAVAILABLE = JSON.stringify(errorEnvelope([dependencyUnavailable().toErrorObject()]));
const UNAVAILABLE_HEADERS: readonly [string, string][] = Object.entries(dependencyUnavailable().headers);

/**
 * The facts of one uWS request: every header copied when it arrives, except the client address,
 * which is read when first asked for (a recorded hit, a QR image): reading the peer address costs
 * about 2.5 µs of CPU (uWS copies it into a new ArrayBuffer), more than an unknown code's whole
 * answer, and it cannot change while the connection lives. It is only asked for while the
 * response is open (in the handler, or in the cork that answers after a load); should it be asked
 * later, it reads as unknown (null) instead of throwing.
 */
class UwsRequestFacts implements RequestFacts {
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
    readonly referrer: string | null,
    readonly secFetchDest: string,
    readonly secFetchMode: string,
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
}

export async function serveRedirects(o: RedirectorServerOptions): Promise<ListeningServer> {
  const uws = nativeUws();
  const { service, metrics } = o;
  const clientAddress = clientAddressChooser(o.trustProxy);
  /** Set by drain(): every answer from then on closes its connection. */
  let draining = false;
  /** Requests answered asynchronously and not answered yet. */
  let inFlight = 0;
  /** Requests received, to tell a quiet connection set during a drain. */
  let received = 0;

  /** The last Host seen and its normal form: nearly every request repeats it. */
  let lastRawHost = '';
  let lastHost = normalizeHost('');
  const hostOf = (raw: string): string => {
    if (raw !== lastRawHost) {
      lastHost = normalizeHost(raw);
      lastRawHost = raw;
    }
    return lastHost;
  };

  /**
   * Copies the request facts, each header bounded as it is read: null when one exceeds
   * MAX_HEADER_LENGTH (answered 431). User-Agent and Referer are cut before anything parses,
   * memoises or records them; an invalid Host reads as no host. The client address is read when
   * first asked for (see UwsRequestFacts).
   */
  function readFacts(res: uWS.HttpResponse, req: uWS.HttpRequest, method: Method): RequestFacts | null {
    const host = req.getHeader(R.host);
    const accept = req.getHeader(R.accept);
    const userAgent = req.getHeader(R.userAgent);
    const referrer = req.getHeader(R.referer);
    const secFetchDest = req.getHeader(R.secFetchDest);
    const secFetchMode = req.getHeader(R.secFetchMode);
    const xff = clientAddress.readsForwardedFor ? req.getHeader(R.xForwardedFor) : '';
    if (
      host.length > MAX_HEADER_LENGTH ||
      accept.length > MAX_HEADER_LENGTH ||
      userAgent.length > MAX_HEADER_LENGTH ||
      referrer.length > MAX_HEADER_LENGTH ||
      secFetchDest.length > MAX_HEADER_LENGTH ||
      secFetchMode.length > MAX_HEADER_LENGTH ||
      xff.length > MAX_HEADER_LENGTH
    ) {
      return null;
    }
    return new UwsRequestFacts(
      method,
      hostOf(host),
      queryHasQr(req.getQuery() ?? ''),
      accept,
      canonicalUserAgent(cutHeader(userAgent, MAX_USER_AGENT_LENGTH)),
      referrer === '' ? null : cutHeader(referrer, MAX_REFERRER_LENGTH),
      cutHeader(secFetchDest, MAX_FETCH_METADATA_LENGTH),
      cutHeader(secFetchMode, MAX_FETCH_METADATA_LENGTH),
      res,
      xff,
      clientAddress,
    );
  }

  /** The 431 answer to a request with a header over MAX_HEADER_LENGTH; the connection is closed. */
  function refuseHeaders(res: uWS.HttpResponse, method: Method): void {
    writeJson(res, '431 Request Header Fields Too Large', HEADERS_TOO_LARGE, method === 'HEAD', true);
  }

  /**
   * Writes a decision. A QR image that is cached, and every HEAD, is answered at once (HEAD never
   * draws); otherwise the image is drawn off the event loop, then written.
   */
  function write(res: uWS.HttpResponse, d: Decision, facts: RequestFacts, aborted: { value: boolean } | null): void {
    const head = facts.method === 'HEAD';
    if (d.kind === 'answer') {
      writeAnswer(res, d, head, draining);
      return;
    }
    const ready = head ? undefined : o.qr.cached(d.format, d.content);
    if (head || ready) {
      writeImage(res, QR_CONTENT_TYPES[d.format], ready, head);
      return;
    }
    const box = aborted ?? watchAbort(res);
    inFlight++;
    writeQr(res, d, facts, box)
      .catch((err: unknown) => fail(res, head, box, err))
      .finally(() => inFlight--);
  }

  function writeImage(res: uWS.HttpResponse, contentType: string, image: QrImage | undefined, head: boolean): void {
    metrics.request('qr');
    res.writeStatus('200 OK').writeHeader('Content-Type', contentType).writeHeader('Cache-Control', 'public, max-age=300');
    if (head || image === undefined) endHead(res, draining);
    else res.end(image.body, draining);
  }

  async function writeQr(res: uWS.HttpResponse, qr: QrAnswer, facts: RequestFacts, aborted: { value: boolean }): Promise<void> {
    let image: QrImage;
    try {
      image = await o.qr.render(qr.format, qr.content, facts.ip);
    } catch (err) {
      if (!(err instanceof QrRefused)) throw err;
      metrics.request('qr_refused');
      if (aborted.value) return;
      const refusal =
        err.reason === 'busy' ? dependencyUnavailable(err.retryAfterSeconds) : rateLimited('qr_render', o.qrRendersPerMinute, err.retryAfterSeconds);
      const status = err.reason === 'busy' ? '503 Service Unavailable' : '429 Too Many Requests';
      res.cork(() => writeJson(res, status, JSON.stringify(errorEnvelope([refusal.toErrorObject()])), false, draining, Object.entries(refusal.headers)));
      return;
    }
    if (aborted.value) return;
    res.cork(() => writeImage(res, image.contentType, image, false));
  }

  function watchAbort(res: uWS.HttpResponse): { value: boolean } {
    const aborted = { value: false };
    res.onAborted(() => {
      aborted.value = true;
    });
    return aborted;
  }

  function fail(res: uWS.HttpResponse, head: boolean, aborted: { value: boolean }, err: unknown): void {
    o.onError(err);
    metrics.request('error');
    if (aborted.value) return;
    if (isDependencyUnreachable(err)) res.cork(() => writeJson(res, '503 Service Unavailable', UNAVAILABLE, head, draining, UNAVAILABLE_HEADERS));
    else res.cork(() => writeJson(res, '500 Internal Server Error', INTERNAL_ERROR, head, draining));
  }

  /** A short-link route: answered now on a cache hit, else after its entities and lease are loaded. */
  function handleRoute(res: uWS.HttpResponse, req: uWS.HttpRequest, method: Method, qrFormat: 'svg' | 'png' | null): void {
    const facts = readFacts(res, req, method);
    if (facts === null) {
      refuseHeaders(res, method);
      return;
    }
    const code = req.getParameter(0);
    if (!isShortCode(code)) {
      // Not a short-code path: the same 404 EN001 an unknown code gets.
      write(res, service.answerMissing(req.getUrl().slice(1, 65), facts, Date.now()), facts, null);
      return;
    }
    const route: Route = qrFormat === null ? { kind: 'visit', shortCode: code } : { kind: 'qr', shortCode: code, format: qrFormat };
    // Still inside the request handler: uWS corks what is written synchronously here.
    const now = service.answerNow(route, facts, Date.now());
    if (!(now instanceof Promise)) {
      write(res, now, facts, null);
      return;
    }
    const aborted = watchAbort(res);
    inFlight++;
    now.then(
      (input) => {
        inFlight--;
        if (aborted.value) return;
        // No await from the admission to the click count: the admission seen is the one recorded.
        res.cork(() => write(res, service.answerPrepared(input, facts, Date.now()), facts, aborted));
      },
      (err: unknown) => {
        inFlight--;
        fail(res, method === 'HEAD', aborted, err);
      },
    );
  }

  /** Runs a handler; a synchronous failure answers 500 SML001. */
  const guarded =
    (method: Method, handler: (res: uWS.HttpResponse, req: uWS.HttpRequest) => void) =>
    (res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
      received++;
      try {
        handler(res, req);
      } catch (err) {
        o.onError(err);
        metrics.request('error');
        res.cork(() => writeJson(res, '500 Internal Server Error', INTERNAL_ERROR, method === 'HEAD', draining));
      }
    };

  const app = uws.App();
  for (const [method, register] of [
    ['GET', app.get.bind(app)],
    ['HEAD', app.head.bind(app)],
  ] as const) {
    register(
      '/healthz',
      guarded(method, (res) => {
        metrics.request('health');
        if (draining) writeJson(res, '503 Service Unavailable', '{"response":{"status":"draining"}}', method === 'HEAD', true);
        else writeJson(res, '200 OK', '{"response":{"status":"ok"}}', method === 'HEAD', false);
      }),
    );
    register(
      '/:code/qr.svg',
      guarded(method, (res, req) => handleRoute(res, req, method, 'svg')),
    );
    register(
      '/:code/qr.png',
      guarded(method, (res, req) => handleRoute(res, req, method, 'png')),
    );
    register(
      '/:code',
      guarded(method, (res, req) => handleRoute(res, req, method, null)),
    );
    register(
      '/*',
      guarded(method, (res, req) => {
        const facts = readFacts(res, req, method);
        if (facts === null) refuseHeaders(res, method);
        else write(res, service.answerMissing(req.getUrl().slice(1, 65), facts, Date.now()), facts, null);
      }),
    );
  }
  app.any('/*', (res) => {
    received++;
    metrics.request('bad_method');
    writeJson(res, '405 Method Not Allowed', '{"errors":[{"code":"VE001","message":"Method not allowed; use GET or HEAD"}]}', false, draining, [
      ['Allow', 'GET, HEAD'],
    ]);
  });

  const listenSocket = await new Promise<uWS.us_listen_socket | false>((resolve) => app.listen(o.host, o.port, resolve));
  if (!listenSocket) throw await probeListenError({ portSetting: 'REDIRECT_PORT', hostSetting: 'REDIRECT_HOST', port: o.port, host: o.host });
  let drained: Promise<void> | null = null;
  return {
    port: uws.us_socket_local_port(listenSocket),
    drain: (deadlineMs) =>
      (drained ??= (async () => {
        uws.us_listen_socket_close(listenSocket);
        await new Promise((r) => setTimeout(r, Math.min(DRAIN_LISTEN_SETTLE_MS, deadlineMs)));
        draining = true;
        const deadline = Date.now() + deadlineMs;
        let seen = received;
        let quietSince = Date.now();
        while (Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
          if (received !== seen || inFlight > 0) {
            seen = received;
            quietSince = Date.now();
          } else if (Date.now() - quietSince >= DRAIN_QUIET_MS) break;
        }
        // Whatever is still open has been idle (or the deadline passed): close it.
        (app as unknown as { close?: () => void }).close?.();
      })()),
  };
}
