// Invariant: every byte the redirector sends is written here, to an open uWS response, and only
// as the answer to one request: a decision (302, page, error, QR image), the transport's own
// answers (431, 405, 500, 503, /healthz), each as the JSON envelope where it is an error. While
// the server drains, every answer closes its connection. HEAD answers carry headers only and a
// QR image is never drawn for one. A QR image that is not cached is drawn off the event loop and
// written when it is ready, unless the client hung up meanwhile.
import type uWS from 'uWebSockets.js';
import { errorEnvelope } from '../shared/errors/app-error.ts';
import { isDependencyUnreachable } from '../shared/net/dependency-unreachable.ts';
import { dependencyUnavailable, rateLimited } from '../shared/errors/domain-errors.ts';
import { REDIRECT_CACHE_CONTROL, type Decision, type HttpAnswer, type QrAnswer } from '../shared/redirects/decide-redirect.ts';
import type { Drain } from './drain.ts';
import type { ReadinessState } from '../shared/runtime/readiness.ts';
import type { RedirectorMetrics } from './metrics.ts';
import { QR_CONTENT_TYPES, type QrImage } from './qr-codes.ts';
import { QrRefused, type QrRenderer } from './qr-renderer.ts';
import type { Method, UwsRequestFacts } from './uws-request-facts.ts';

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

const HEADERS_TOO_LARGE = '{"errors":[{"code":"VE001","message":"Request header fields too large"}]}';
const INTERNAL_ERROR = '{"errors":[{"code":"SML001","message":"Internal server error"}]}';
const METHOD_NOT_ALLOWED = '{"errors":[{"code":"VE001","message":"Method not allowed; use GET or HEAD"}]}';
const ALLOW: readonly [string, string][] = [['Allow', 'GET, HEAD']];
/** A link that cannot be loaded because Postgres (or Redis) is down: retry shortly, never a 500. */
const UNAVAILABLE = JSON.stringify(errorEnvelope([dependencyUnavailable().toErrorObject()]));
const UNAVAILABLE_HEADERS: readonly [string, string][] = Object.entries(dependencyUnavailable().headers);

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

export interface AnswerWritersOptions {
  metrics: RedirectorMetrics;
  /** Draws QR images off the event loop (bounded cache, per-address rate limit). */
  qr: QrRenderer;
  /** QR drawings per client address per minute (for the 429 details). */
  qrRendersPerMinute: number;
  drain: Drain;
  onError: (err: unknown) => void;
}

export class AnswerWriters {
  readonly #o: AnswerWritersOptions;

  constructor(options: AnswerWritersOptions) {
    this.#o = options;
  }

  /**
   * Writes a decision. A QR image that is cached, and every HEAD, is answered at once (HEAD never
   * draws); otherwise the image is drawn off the event loop, then written.
   */
  decision(res: uWS.HttpResponse, d: Decision, facts: UwsRequestFacts): void {
    const head = facts.method === 'HEAD';
    const { drain, qr } = this.#o;
    if (d.kind === 'answer') {
      writeAnswer(res, d, head, drain.draining);
      return;
    }
    const ready = head ? undefined : qr.cached(d.format, d.content);
    if (head || ready) {
      this.#image(res, QR_CONTENT_TYPES[d.format], ready, head);
      return;
    }
    facts.watchAbort();
    drain.inFlight++;
    this.#drawn(res, d, facts)
      .catch((err: unknown) => this.failure(res, facts, err))
      .finally(() => drain.inFlight--);
  }

  /** The answer to a request that failed: 503 SML006 when a dependency is unreachable, else 500 SML001; nothing once the client is gone. */
  failure(res: uWS.HttpResponse, facts: UwsRequestFacts, err: unknown): void {
    this.#o.onError(err);
    this.#o.metrics.request('error');
    if (facts.aborted) return;
    const head = facts.method === 'HEAD';
    const close = this.#o.drain.draining;
    if (isDependencyUnreachable(err)) res.cork(() => writeJson(res, '503 Service Unavailable', UNAVAILABLE, head, close, UNAVAILABLE_HEADERS));
    else res.cork(() => writeJson(res, '500 Internal Server Error', INTERNAL_ERROR, head, close));
  }

  /** A handler that threw before answering: 500 SML001. */
  internalError(res: uWS.HttpResponse, method: Method, err: unknown): void {
    this.#o.onError(err);
    this.#o.metrics.request('error');
    res.cork(() => writeJson(res, '500 Internal Server Error', INTERNAL_ERROR, method === 'HEAD', this.#o.drain.draining));
  }

  /** 431 to a request with a header over the limit; the connection is closed. */
  headersTooLarge(res: uWS.HttpResponse, method: Method): void {
    writeJson(res, '431 Request Header Fields Too Large', HEADERS_TOO_LARGE, method === 'HEAD', true);
  }

  /** /healthz, liveness only: 200 ok while the worker runs (closing the connection once it drains). */
  health(res: uWS.HttpResponse, method: Method): void {
    this.#o.metrics.request('health');
    writeJson(res, '200 OK', '{"response":{"status":"ok"}}', method === 'HEAD', this.#o.drain.draining);
  }

  /** /readyz: 200 ready; 503 while the process starts, and from its stop signal or drain on (closing the connection). */
  ready(res: uWS.HttpResponse, method: Method, state: ReadinessState): void {
    this.#o.metrics.request('health');
    const status = this.#o.drain.draining ? 'stopping' : state;
    if (status === 'ready') writeJson(res, '200 OK', '{"response":{"status":"ready"}}', method === 'HEAD', false);
    else writeJson(res, '503 Service Unavailable', `{"response":{"status":"${status}"}}`, method === 'HEAD', this.#o.drain.draining);
  }

  /** 405 to any method but GET and HEAD. */
  methodNotAllowed(res: uWS.HttpResponse): void {
    this.#o.metrics.request('bad_method');
    writeJson(res, '405 Method Not Allowed', METHOD_NOT_ALLOWED, false, this.#o.drain.draining, ALLOW);
  }

  #image(res: uWS.HttpResponse, contentType: string, image: QrImage | undefined, head: boolean): void {
    this.#o.metrics.request('qr');
    const close = this.#o.drain.draining;
    res.writeStatus('200 OK').writeHeader('Content-Type', contentType).writeHeader('Cache-Control', 'public, max-age=300');
    if (head || image === undefined) endHead(res, close);
    else res.end(image.body, close);
  }

  async #drawn(res: uWS.HttpResponse, qr: QrAnswer, facts: UwsRequestFacts): Promise<void> {
    let image: QrImage;
    try {
      image = await this.#o.qr.render(qr.format, qr.content, facts.ip);
    } catch (err) {
      if (!(err instanceof QrRefused)) throw err;
      this.#o.metrics.request('qr_refused');
      if (facts.aborted) return;
      const refusal =
        err.reason === 'busy' ? dependencyUnavailable(err.retryAfterSeconds) : rateLimited('qr_render', this.#o.qrRendersPerMinute, err.retryAfterSeconds);
      const status = err.reason === 'busy' ? '503 Service Unavailable' : '429 Too Many Requests';
      const close = this.#o.drain.draining;
      res.cork(() => writeJson(res, status, JSON.stringify(errorEnvelope([refusal.toErrorObject()])), false, close, Object.entries(refusal.headers)));
      return;
    }
    if (facts.aborted) return;
    res.cork(() => this.#image(res, image.contentType, image, false));
  }
}
