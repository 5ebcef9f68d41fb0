// Invariant: one uWS app per call, in the current process, and only transport: the uWS router
// sends /healthz, /readyz, /:code/qr.svg, /:code/qr.png and /:code (GET and HEAD; POST: a password
// form, password-form.ts) to thin handlers,
// everything else to a 404 envelope, other methods to 405 (/metrics is served on METRICS_PORT
// only: here it is an unknown code). A handler copies the request facts (uws-request-facts.ts),
// asks the RedirectService for the answer, and writes it (answer-writers.ts): at once, inside the
// handler (uWS corks it), when every entity is cached; otherwise inside cork() once it is
// decided, unless the client hung up. A 431 waits for the body the request announced
// (lingering-answer.ts). drain() is drain.ts's.
import type uWS from 'uWebSockets.js';
import { probeListenError } from '../shared/runtime/listen-failure.ts';
import { isValidShortCode } from '../shared/links/short-code.ts';
import type { TrustProxy } from '../shared/net/trusted-proxies.ts';
import { AnswerWriters } from './answer-writers.ts';
import type { Decision, Route } from '../shared/redirects/decide-redirect.ts';
import { Drain } from './drain.ts';
import type { ReadinessState } from '../shared/runtime/readiness.ts';
import { answerAfterBody } from './lingering-answer.ts';
import { LINGER_BYTES } from '../shared/net/lingering-close.ts';
import type { RedirectorMetrics } from './metrics.ts';
import type { QrRenderer } from './qr-renderer.ts';
import type { RedirectService } from './redirect-service.ts';
import { nativeUws } from './uws-native.ts';
import { UwsFactsReader, type Method, type UwsRequestFacts } from './uws-request-facts.ts';
import type { RateLimiter } from '../shared/limits/rate-limiter.ts';
import type { PasswordCookies } from '../shared/links/password-cookie.ts';
import { type FormReply, formTooLarge, MAX_FORM_BYTES, PasswordForm } from './password-form.ts';

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
  /** Password forms: the cookie signer, the wrong-try limiter, whether cookies are Secure (https short links). */
  passwords: { cookies: PasswordCookies; limiter: RateLimiter; secureCookies: boolean };
  /** The process's readiness state, for /readyz (the drain also turns it to 503). */
  readiness: () => ReadinessState;
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

/** The part of a path that can be a short code at most (longer paths are answered as unknown codes by their first characters). */
const MISSING_PATH_CHARS = 64;

export async function serveRedirects(o: RedirectorServerOptions): Promise<ListeningServer> {
  const uws = nativeUws();
  const { service } = o;
  const drain = new Drain();
  const facts = new UwsFactsReader(o.trustProxy);
  const writers = new AnswerWriters({ metrics: o.metrics, qr: o.qr, qrRendersPerMinute: o.qrRendersPerMinute, drain, onError: o.onError });

  /** Writes the decision once it is made, unless the client hung up meanwhile. */
  const later = (res: uWS.HttpResponse, f: UwsRequestFacts, pending: Promise<Decision | null>): void => {
    f.watchAbort();
    drain.inFlight++;
    pending.then(
      (decision) => {
        drain.inFlight--;
        if (decision === null || f.aborted) return;
        res.cork(() => writers.decision(res, decision, f));
      },
      (err: unknown) => {
        drain.inFlight--;
        writers.failure(res, f, err);
      },
    );
  };

  /** A short-link route: answered now on a cache hit, else once its entities (and a quota lease) are loaded. */
  function handleRoute(res: uWS.HttpResponse, req: uWS.HttpRequest, method: Method, qrFormat: 'svg' | 'png' | null): void {
    const f = facts.read(res, req, method);
    if (f === null) {
      answerAfterBody(res, req, () => writers.headersTooLarge(res, method));
      return;
    }
    const code = req.getParameter(0);
    if (!isValidShortCode(code)) {
      // No short code can be stored under it: the same 404 EN001 an unknown code gets, without a lookup.
      const asked = qrFormat === null ? req.getUrl().slice(1, MISSING_PATH_CHARS + 1) : code.slice(0, MISSING_PATH_CHARS);
      writers.decision(res, service.answerMissing(asked, f, Date.now()), f);
      return;
    }
    const route: Route = qrFormat === null ? { kind: 'visit', shortCode: code } : { kind: 'qr', shortCode: code, format: qrFormat };
    const answer = service.answer(route, f, Date.now());
    // Still inside the request handler: uWS corks what is written synchronously here.
    if (answer instanceof Promise) later(res, f, answer);
    else writers.decision(res, answer, f);
  }

  /** Runs a handler; a synchronous failure answers 500 SML001. */
  const guarded =
    (method: Method, handler: (res: uWS.HttpResponse, req: uWS.HttpRequest) => void) =>
    (res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
      drain.received++;
      try {
        handler(res, req);
      } catch (err) {
        writers.internalError(res, method, err);
      }
    };

  const passwordForm = new PasswordForm({ service, ...o.passwords });

  const writeReply = (res: uWS.HttpResponse, reply: FormReply, close: boolean): void => {
    res.cork(() => {
      res.writeStatus(reply.status);
      for (const [k, v] of reply.headers) res.writeHeader(k, v);
      res.end(reply.body, close || drain.draining);
    });
  };

  /** POST /:code: a password form. The body is read up to MAX_FORM_BYTES; the reply waits for the check. */
  function handlePasswordPost(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    const f = facts.read(res, req, 'GET');
    if (f === null) {
      writers.headersTooLarge(res, 'GET');
      return;
    }
    const code = req.getParameter(0);
    if (!isValidShortCode(code)) {
      writers.decision(res, service.answerMissing(req.getUrl().slice(1, MISSING_PATH_CHARS + 1), f, Date.now()), f);
      return;
    }
    // A body over MAX_FORM_BYTES (announced or not) is read on and discarded up to LINGER_BYTES
    // more before the 413 closes the connection: closed mid-body, the client would get a reset.
    const declared = Number(req.getHeader('content-length') || '0');
    let tooLarge = !(declared <= MAX_FORM_BYTES);
    f.watchAbort();
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    drain.inFlight++;
    const finish = (reply: () => Promise<FormReply> | FormReply, close: boolean): void => {
      done = true;
      Promise.resolve()
        .then(reply)
        .then(
          (r) => {
            drain.inFlight--;
            o.metrics.request('password_form');
            if (!f.aborted) writeReply(res, r, close);
          },
          (err: unknown) => {
            drain.inFlight--;
            writers.failure(res, f, err);
          },
        );
    };
    res.onData((chunk, last) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > MAX_FORM_BYTES) tooLarge = true;
      if (tooLarge) {
        if (last || size > MAX_FORM_BYTES + LINGER_BYTES) finish(() => formTooLarge(f), true);
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (last) finish(() => passwordForm.submit(code, f, Buffer.concat(chunks).toString('utf8')), false);
    });
  }

  const app = uws.App();
  app.post('/:code', (res, req) => {
    drain.received++;
    try {
      handlePasswordPost(res, req);
    } catch (err) {
      writers.internalError(res, 'GET', err);
    }
  });
  for (const [method, register] of [
    ['GET', app.get.bind(app)],
    ['HEAD', app.head.bind(app)],
  ] as const) {
    register(
      '/healthz',
      guarded(method, (res) => writers.health(res, method)),
    );
    register(
      '/readyz',
      guarded(method, (res) => writers.ready(res, method, o.readiness())),
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
        const f = facts.read(res, req, method);
        if (f === null) answerAfterBody(res, req, () => writers.headersTooLarge(res, method));
        else writers.decision(res, service.answerMissing(req.getUrl().slice(1, MISSING_PATH_CHARS + 1), f, Date.now()), f);
      }),
    );
  }
  app.any('/*', (res) => {
    drain.received++;
    writers.methodNotAllowed(res);
  });

  const listenSocket = await new Promise<uWS.us_listen_socket | false>((resolve) => app.listen(o.host, o.port, resolve));
  if (!listenSocket) throw await probeListenError({ portSetting: 'REDIRECT_PORT', hostSetting: 'REDIRECT_HOST', port: o.port, host: o.host });
  return {
    port: uws.us_socket_local_port(listenSocket),
    drain: (deadlineMs) =>
      drain.run(
        {
          stopListening: () => uws.us_listen_socket_close(listenSocket),
          closeConnections: () => (app as unknown as { close?: () => void }).close?.(),
        },
        deadlineMs,
      ),
  };
}
