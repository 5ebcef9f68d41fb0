// Invariant: one delivery attempt is bounded in every dimension: one deadline for the whole
// exchange (connect, request, answer; 15 s), at most ANSWER_LIMIT bytes of the answer read
// (then the connection is destroyed, so 100 MB costs nothing), no redirect followed (a 3xx is
// just a status), its own connection without keep-alive, and only to addresses the preview
// fetcher's policy allows, checked when the connection is made (guardedLookup), so a host that
// rebinds to a private address after it was saved is refused. It never throws.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPublicAddress, RefusedAddressError } from '../previews/address-policy.ts';

export const DELIVERY_TIMEOUT_MS = 15_000;
export const ANSWER_LIMIT = 1024;

export interface AttemptResult {
  /** The HTTP status; null when no answer came (refused, timed out, reset). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first ANSWER_LIMIT bytes of the answer, as text. */
  responseBody: string;
  /** Retry-After of the answer in ms, when it gave one. */
  retryAfterMs: number | null;
}

const httpAgent = new HttpAgent({ keepAlive: false });
const httpsAgent = new HttpsAgent({ keepAlive: false });

/** Retry-After as delta-seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function readHead(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      response.removeAllListeners('data');
      resolve(Buffer.concat(chunks).subarray(0, ANSWER_LIMIT).toString('utf8'));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= ANSWER_LIMIT) {
        done();
        response.destroy(); // the rest is never read
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}

export async function sendAttempt(
  target: string,
  headers: Record<string, string>,
  body: string,
  o: { allowPrivate: boolean; timeoutMs?: number },
): Promise<AttemptResult> {
  const started = performance.now();
  const allowed = o.allowPrivate ? () => true : isPublicAddress;
  const result = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return result({ statusCode: null, error: 'invalid URL', responseBody: '', retryAfterMs: null });
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !allowed(literal)) {
    return result({ statusCode: null, error: new RefusedAddressError(url.hostname, literal).message, responseBody: '', retryAfterMs: null });
  }
  const https = url.protocol === 'https:';
  const signal = AbortSignal.timeout(o.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs'>): void => {
      if (settled) return;
      settled = true;
      resolve(result(r));
    };
    const req = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        agent: https ? httpsAgent : httpAgent,
        signal,
        lookup: guardedLookup(allowed) as never,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Shortlink-Webhooks/1.0' },
      },
      (response) => {
        const statusCode = response.statusCode ?? null;
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
        void readHead(response).then((responseBody) => {
          req.destroy();
          finish({ statusCode, error: null, responseBody, retryAfterMs });
        });
      },
    );
    req.on('error', (err: Error) => {
      const message = signal.aborted ? `no answer within ${o.timeoutMs ?? DELIVERY_TIMEOUT_MS} ms` : err.message;
      finish({ statusCode: null, error: message, responseBody: '', retryAfterMs: null });
    });
    req.end(body);
  });
}
