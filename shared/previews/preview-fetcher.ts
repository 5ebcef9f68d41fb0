// Invariant: fetching a destination's preview is bounded in every dimension: one overall
// deadline, at most `maxBytes` of body read (by default HEAD_LIMIT, and reading stops as soon as
// the document's <head> ended), at most `maxRedirects` hops (http/https only), and
// only to addresses the policy allows, checked on every hop (see address-policy.ts), over its own
// connections without keep-alive. It never follows anything but HTTP redirects and never runs
// page content.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { guardedLookup, isPublicAddress, RefusedAddressError, type AddressPredicate } from './address-policy.ts';
import { refusesFraming } from './frame-policy.ts';
import { HEAD_LIMIT } from './head-scanner.ts';
import { createOpenGraphParser, type OpenGraphParser, type ParsedPreview } from './open-graph-parser.ts';

export interface PreviewFetchOptions {
  /** Allow loopback/private targets (PREVIEW_ALLOW_PRIVATE; tests only). */
  allowPrivate?: boolean;
  /** Overrides the address policy (tests). */
  addressAllowed?: AddressPredicate;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
}

export interface FetchedPreview extends ParsedPreview {
  frameRefused: boolean;
  finalUrl: string;
}

export class PreviewFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PreviewFetchError';
  }
}

export const FETCH_DEFAULTS = {
  timeoutMs: 5_000,
  maxBytes: HEAD_LIMIT,
  maxRedirects: 5,
  userAgent: 'Mozilla/5.0 (compatible; ShortlinkPreview/1.0; link preview fetcher)',
};

interface Hop {
  response: IncomingMessage;
  url: URL;
}

// Our own agents, without keep-alive: a preview connection never outlives its one request, and
// never shares a pool with the rest of the process (Node 20's global agent keeps sockets alive).
const httpAgent = new HttpAgent({ keepAlive: false });
const httpsAgent = new HttpsAgent({ keepAlive: false });

function open(url: URL, allowed: AddressPredicate, signal: AbortSignal, userAgent: string): Promise<Hop> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !allowed(literal)) return Promise.reject(new RefusedAddressError(url.hostname, literal));
  const https = url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        agent: https ? httpsAgent : httpAgent,
        signal,
        lookup: guardedLookup(allowed) as never,
        headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', 'accept-encoding': 'identity' },
      },
      (response) => resolve({ response, url }),
    );
    req.on('error', reject);
    req.end();
  });
}

/** The charset a Content-Type names, when this runtime can decode it; else UTF-8. */
function decoderFor(contentType: string): TextDecoder {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** The parser never gets more than this at once; other work on the event loop runs in between. */
export const PARSE_SLICE = 8 * 1024;

/** Writes `text` to the parser a slice at a time, yielding to the event loop between slices; true when it needs no more. */
async function feed(parser: OpenGraphParser, text: string): Promise<boolean> {
  for (let at = 0; at < text.length; at += PARSE_SLICE) {
    if (at > 0) await setImmediate();
    if (parser.write(text.slice(at, at + PARSE_SLICE))) return true;
  }
  return false;
}

/**
 * Feeds the body to the parser as it arrives and stops reading (destroying the response) as soon
 * as the parser has what it needs (the end of <head>) or `maxBytes` were read.
 */
async function parseBody(response: IncomingMessage, contentType: string, pageUrl: string, maxBytes: number): Promise<ParsedPreview> {
  const parser = createOpenGraphParser(pageUrl);
  const decoder = decoderFor(contentType);
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      size += part.length;
      if (await feed(parser, decoder.decode(part, { stream: true }))) break;
      if (size >= maxBytes) break; // leaving the loop destroys the stream
    }
  } finally {
    response.destroy();
  }
  parser.write(decoder.decode());
  return parser.end();
}

export async function fetchPreview(target: string, options: PreviewFetchOptions = {}): Promise<FetchedPreview> {
  const o = { ...FETCH_DEFAULTS, ...options };
  const allowed: AddressPredicate = options.addressAllowed ?? (options.allowPrivate ? () => true : isPublicAddress);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new PreviewFetchError(`preview fetch timed out after ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    let url = new URL(target);
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PreviewFetchError(`unsupported scheme ${url.protocol}`);
      const { response } = await open(url, allowed, controller.signal, o.userAgent);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        response.destroy();
        if (hop >= o.maxRedirects) throw new PreviewFetchError(`more than ${o.maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new PreviewFetchError(`destination answered ${status}`);
      }
      const frameRefused = refusesFraming(
        [response.headers['x-frame-options']].flat().join(',') || undefined,
        [response.headers['content-security-policy']].flat().join(',') || undefined,
      );
      const contentType = response.headers['content-type'] ?? '';
      if (!/html/i.test(contentType)) {
        response.destroy();
        return { title: null, description: null, imageUrl: null, frameRefused, finalUrl: url.href };
      }
      return { ...(await parseBody(response, contentType, url.href, o.maxBytes)), frameRefused, finalUrl: url.href };
    }
  } catch (err) {
    if (controller.signal.aborted && controller.signal.reason instanceof PreviewFetchError) throw controller.signal.reason;
    if (err instanceof PreviewFetchError || err instanceof RefusedAddressError) throw err;
    const cause = err instanceof Error && err.cause instanceof RefusedAddressError ? err.cause : err;
    if (cause instanceof RefusedAddressError) throw cause;
    throw new PreviewFetchError(`preview fetch failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
