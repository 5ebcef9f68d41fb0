// Invariant: RequestFacts are plain strings copied out of the request before any await (the
// client address may be read when first asked for, while the response is open: it cannot change
// during a connection); nothing here refers to uWS objects, so the decision can be computed (and
// tested) without a server.
// The click source is a function of these facts alone, following DECISIONS.md § Redirect.
import type { BotCategory, ClickSource } from '../analytics/model/event-values.ts';
import { negotiate } from './content-negotiation.ts';

export interface RequestFacts {
  method: 'GET' | 'HEAD';
  /** Host header, lower-cased, without a trailing dot. */
  host: string;
  /** The request carries qr=1 (the service's own QR codes encode it). */
  qr: boolean;
  accept: string;
  userAgent: string;
  /** The visitor's bot category (botCategoryOf its userAgent, read once with it); null for a person. */
  bot: BotCategory | null;
  referrer: string | null;
  secFetchDest: string;
  secFetchMode: string;
  /** Accept-Language as sent (link rules read its most preferred entry). */
  acceptLanguage: string;
  /** The visitor sent `DNT: 1` or `Sec-GPC: 1` (honoured where the organisation's tracking says so). */
  doNotTrack: boolean;
  /** The query string without '?' (link rules' queryParam). */
  query: string;
  /** The Cookie header (read for password-protected links only); absent where there is none (the API's resolve). */
  readonly cookie?: string;
  /** Client address: the peer, or the nearest X-Forwarded-For entry that is not a trusted proxy (TRUST_PROXY). */
  readonly ip: string | null;
  /** The client hung up before its answer (seen only by an answer that waited for a load). */
  readonly aborted?: boolean;
}

const EMBED_DESTINATIONS = new Set(['iframe', 'embed', 'object']);

export function clickSourceOf(facts: RequestFacts): ClickSource {
  if (facts.qr) return 'QR_CODE';
  if (EMBED_DESTINATIONS.has(facts.secFetchDest)) return 'EMBED';
  const accept = negotiate(facts.accept);
  if (accept.asksJson) return 'API';
  if (facts.secFetchMode === 'navigate' && (facts.secFetchDest === 'document' || facts.secFetchDest === '')) return 'DIRECT';
  if (facts.secFetchMode === '' && facts.secFetchDest === '' && accept.prefersHtml) return 'DIRECT';
  return 'UNKNOWN';
}

/** True when `query` (without '?') has a parameter qr whose value is 1. */
export function queryHasQr(query: string): boolean {
  if (query === '' || !query.includes('qr=')) return false;
  for (const segment of query.split('&')) if (segment === 'qr=1') return true;
  return false;
}
