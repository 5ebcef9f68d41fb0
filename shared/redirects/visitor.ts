// Invariant: what link rules ask about a visitor is computed from the request facts only when a
// rule asks, at most once per request: the device profile (the User-Agent's cached parse), the
// primary tag of the most preferred Accept-Language entry (garbage reads as none, never an
// error; parsed once per distinct header in a bounded memo), the query's parameters (parsed once;
// an empty query has none). The country is given (looked up by the caller
// only for links with a country rule).
import type { Visitor } from '../links/link-rules.ts';
import type { DeviceClass } from '../links/model/link-rules-model.ts';
import { type DeviceProfile, detectDevice } from './platform-detection.ts';

/** Accept-Language and the query are read up to these lengths (longer values are cut, not refused). */
export const MAX_ACCEPT_LANGUAGE_LENGTH = 512;
export const MAX_QUERY_LENGTH = 4_096;
const LANGUAGE_TAG = /^([A-Za-z]{1,8})(?:-[A-Za-z0-9]{1,8})*$/;
const QUALITY = /^[qQ]=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Parsed Accept-Language values: browsers send a handful of distinct ones. Bounded: cleared when full. */
const languages = new Map<string, string | null>();
const MAX_LANGUAGES = 4_096;

/** The primary tag (lower-case) of the entry with the highest quality (the first of equals); null when none is well-formed. */
export function preferredLanguage(header: string): string | null {
  if (header === '') return null;
  const known = languages.get(header);
  if (known !== undefined) return known;
  const parsed = parsePreferredLanguage(header);
  if (languages.size >= MAX_LANGUAGES) languages.clear();
  languages.set(header, parsed);
  return parsed;
}

function parsePreferredLanguage(header: string): string | null {
  const text = header.length > MAX_ACCEPT_LANGUAGE_LENGTH ? header.slice(0, MAX_ACCEPT_LANGUAGE_LENGTH) : header;
  let best: string | null = null;
  let bestQ = 0;
  for (const part of text.split(',')) {
    const [rawTag = '', ...params] = part.split(';');
    const m = LANGUAGE_TAG.exec(rawTag.trim());
    if (m === null) continue;
    let q = 1;
    for (const param of params) {
      const qm = QUALITY.exec(param.trim());
      if (qm !== null) q = Number(qm[1]);
      else if (/^[qQ]=/.test(param.trim())) q = -1;
    }
    if (q > bestQ) {
      best = (m[1] as string).toLowerCase();
      bestQ = q;
    }
  }
  return best;
}

export interface VisitorFacts {
  userAgent: string;
  acceptLanguage: string;
  /** The request's query string, without '?'. */
  query: string;
}

export class RequestVisitor implements Visitor {
  #device: DeviceProfile | null = null;
  #language: string | null | undefined = undefined;
  #params: Map<string, string[]> | null = null;

  constructor(
    readonly facts: VisitorFacts,
    readonly country: string | null,
  ) {}

  device(): DeviceProfile {
    this.#device ??= detectDevice(this.facts.userAgent);
    return this.#device;
  }

  isDevice(device: DeviceClass): boolean {
    const d = this.device();
    if (device === 'IOS') return d.platform === 'IOS';
    if (device === 'ANDROID') return d.platform === 'ANDROID';
    return d.form === device;
  }

  countryCode(): string | null {
    return this.country;
  }

  language(): string | null {
    if (this.#language === undefined) this.#language = preferredLanguage(this.facts.acceptLanguage);
    return this.#language;
  }

  hasQueryParam(name: string, value: string | null): boolean {
    if (this.facts.query === '') return false;
    if (this.#params === null) {
      this.#params = new Map();
      const query = this.facts.query.length > MAX_QUERY_LENGTH ? this.facts.query.slice(0, MAX_QUERY_LENGTH) : this.facts.query;
      for (const [k, v] of new URLSearchParams(query)) {
        const values = this.#params.get(k);
        if (values === undefined) this.#params.set(k, [v]);
        else values.push(v);
      }
    }
    const values = this.#params.get(name);
    if (values === undefined) return false;
    return value === null || values.includes(value);
  }
}
