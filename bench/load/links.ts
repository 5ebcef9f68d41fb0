// Invariant: the links a run visits, as (Host, path) pairs: read from a --codes file (a short code
// a line, sent with the target's host, or a full short URL, sent with its own host), or created
// through the API's bulkSave (30 a request), each answered link visited on the host of its
// smartLink. A file line that is neither is refused with its line number; a bulk save that
// refuses a record stops the run (the links would not be the ones asked for).
import { type Api, ApiError, callApi } from './api.ts';
import type { Visit } from './traffic.ts';

export const MAX_CODES = 1_000_000;
const BULK = 30;
const CODE = /^[A-Za-z0-9_-]+$/;

/** The visits a codes file lists, or the one line saying what is wrong with it. */
export function parseCodes(text: string, targetHost: string): { visits: Visit[] } | { error: string } {
  const visits: Visit[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] ?? '').trim();
    if (line === '' || line.startsWith('#')) continue;
    if (visits.length >= MAX_CODES) return { error: `more than ${MAX_CODES.toLocaleString('en-US')} links` };
    if (CODE.test(line)) {
      visits.push({ host: targetHost, path: `/${line}` });
      continue;
    }
    let u: URL | null = null;
    try {
      u = new URL(line);
    } catch {
      /* not a URL */
    }
    if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname.length < 2) {
      return { error: `line ${n + 1}: '${line.slice(0, 80)}' is neither a short code nor a short URL` };
    }
    visits.push({ host: u.host, path: `${u.pathname}${u.search}` });
  }
  if (visits.length === 0) return { error: 'no links in it (one short code or short URL a line)' };
  return { visits };
}

interface BulkAnswer {
  successRecords: { shortCode: string; smartLink: string }[];
  failureRecords: unknown[];
}

/** Creates `count` links named after the run and returns their visits, in creation order. */
export async function createLinks(api: Api, count: number, runId: string, onProgress: (created: number, waitS: number | null) => void): Promise<Visit[]> {
  const visits: Visit[] = [];
  while (visits.length < count) {
    const first = visits.length;
    const data = Array.from({ length: Math.min(BULK, count - first) }, (_, k) => ({
      url: `https://example.com/load-kit/${runId}/${first + k + 1}`,
      shortLinkName: `load kit ${runId} #${first + k + 1}`,
    }));
    const r = await callApi<BulkAnswer>(api, 'POST', '/shortenedUrl/bulkSave', { data }, (s) => onProgress(visits.length, s));
    if (r.failureRecords.length > 0 || r.successRecords.length !== data.length) {
      const why = JSON.stringify(r.failureRecords[0] ?? 'fewer records saved than sent').slice(0, 200);
      throw new ApiError(`the API refused ${data.length - r.successRecords.length} of ${data.length} links of a bulk save: ${why}`, 200);
    }
    for (const rec of r.successRecords) {
      const u = new URL(rec.smartLink);
      visits.push({ host: u.host, path: u.pathname });
    }
    onProgress(visits.length, null);
  }
  return visits;
}
