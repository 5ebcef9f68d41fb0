// Invariant: a request "prefers HTML" when its Accept header names text/html (or
// application/xhtml+xml) explicitly with a quality above zero and at least that of JSON; it "asks
// JSON" when it names application/json (or a +json type) explicitly with a higher quality than
// HTML. A bare */* or a missing header is neither. Results are memoised per distinct header value
// of at most 256 characters (so the memo holds at most MEMO_LIMIT × 512 bytes of keys).

export interface AcceptVerdict {
  prefersHtml: boolean;
  asksJson: boolean;
}

const NEITHER: AcceptVerdict = Object.freeze({ prefersHtml: false, asksJson: false });
const MEMO_LIMIT = 1_000;
const MEMO_MAX_KEY_LENGTH = 256;
const memo = new Map<string, AcceptVerdict>();

function parseAccept(header: string): AcceptVerdict {
  let html = -1;
  let json = -1;
  for (const part of header.split(',')) {
    const [rawType, ...params] = part.split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v?.trim());
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      }
    }
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type)) json = Math.max(json, q);
  }
  return {
    prefersHtml: html > 0 && html >= json,
    asksJson: json > 0 && json > html,
  };
}

export function negotiate(accept: string): AcceptVerdict {
  if (accept === '' || accept === '*/*') return NEITHER;
  if (accept.length > MEMO_MAX_KEY_LENGTH) return parseAccept(accept);
  let verdict = memo.get(accept);
  if (verdict === undefined) {
    verdict = parseAccept(accept);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(accept, verdict);
  }
  return verdict;
}
