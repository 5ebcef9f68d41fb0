// Invariant: preview values are read from <meta> tags and <title> of an HTML document without
// executing or rendering anything. Open Graph values win over Twitter card values, which win
// over plain HTML ones. Values are entity-decoded, whitespace-collapsed and length-capped; the
// image is an absolute http(s) URL resolved against the page URL, or absent.

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

function clean(value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const v = decodeEntities(value).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
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

const META = /<meta\b([^>]*)>/gi;
const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title>/i;

export function parseOpenGraph(html: string, pageUrl: string): ParsedPreview {
  const found = new Map<string, string>();
  for (const m of html.matchAll(META)) {
    const attrs = new Map<string, string>();
    for (const a of (m[1] ?? '').matchAll(ATTR)) attrs.set((a[1] ?? '').toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '');
    const key = (attrs.get('property') ?? attrs.get('name') ?? '').toLowerCase();
    const content = attrs.get('content');
    if (key !== '' && content !== undefined && !found.has(key)) found.set(key, content);
  }
  const pick = (...keys: string[]): string | undefined => {
    for (const k of keys) {
      const v = found.get(k);
      if (v !== undefined && v.trim() !== '') return v;
    }
    return undefined;
  };
  const titleTag = TITLE.exec(html)?.[1];
  return {
    title: clean(pick('og:title', 'twitter:title') ?? titleTag, MAX_TITLE),
    description: clean(pick('og:description', 'twitter:description', 'description'), MAX_DESCRIPTION),
    imageUrl: absoluteHttpUrl(clean(pick('og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src'), MAX_URL), pageUrl),
  };
}
