// Invariant: preview values are read from <meta> tags and <title> of an HTML document's head
// (see head-scanner.ts: at most HEAD_LIMIT characters, linear time, no regex over the document)
// without executing or rendering anything. Open Graph values win over Twitter card values, which
// win over plain HTML ones. Values are entity-decoded, whitespace-collapsed and length-capped; the
// image is an absolute http(s) URL resolved against the page URL, or absent.
import { HeadScanner } from './head-scanner.ts';

export interface ParsedPreview {
  title: string | null;
  description: string | null;
  imageUrl: string | null;
}

const MAX_TITLE = 300;
const MAX_DESCRIPTION = 1_000;
const MAX_URL = 2_048;

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+[0-9]*);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

/** An entity is at most 10 characters long (&#x10FFFF;), so this much raw text covers `max` decoded ones. */
const RAW_PER_CHAR = 10;

function clean(value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  const v = decodeEntities(value.slice(0, max * RAW_PER_CHAR))
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (v === '') return null;
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
}

function absoluteHttpUrl(value: string | null, base: string): string | null {
  if (value === null) return null;
  try {
    const u = new URL(value, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.href.length <= MAX_URL ? u.href : null;
  } catch {
    return null;
  }
}

/** A parser fed the document in pieces (as it arrives); `write` says when it needs no more. */
export interface OpenGraphParser {
  write(chunk: string): boolean;
  end(): ParsedPreview;
}

export function createOpenGraphParser(pageUrl: string): OpenGraphParser {
  const found = new Map<string, string>();
  let titleTag: string | undefined;
  const scanner = new HeadScanner({
    meta(attrs) {
      const key = (attrs.get('property') ?? attrs.get('name') ?? '').toLowerCase();
      const content = attrs.get('content');
      if (key !== '' && content !== undefined && !found.has(key)) found.set(key, content);
    },
    title(text) {
      titleTag = text;
    },
  });
  const pick = (...keys: string[]): string | undefined => {
    for (const k of keys) {
      const v = found.get(k);
      if (v !== undefined && v.trim() !== '') return v;
    }
    return undefined;
  };
  return {
    write: (chunk) => scanner.write(chunk),
    end: () => {
      scanner.end();
      return {
        title: clean(pick('og:title', 'twitter:title') ?? titleTag, MAX_TITLE),
        description: clean(pick('og:description', 'twitter:description', 'description'), MAX_DESCRIPTION),
        imageUrl: absoluteHttpUrl(clean(pick('og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src'), MAX_URL), pageUrl),
      };
    },
  };
}

export function parseOpenGraph(html: string, pageUrl: string): ParsedPreview {
  const parser = createOpenGraphParser(pageUrl);
  parser.write(html);
  return parser.end();
}
