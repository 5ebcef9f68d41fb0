// Invariant: applying UTM tags changes only the query's utm_source / utm_medium / utm_campaign
// parameters that the link sets: each replaces the first parameter of that name in place (later
// duplicates are dropped) or is appended; every other parameter keeps its exact bytes and order,
// and the fragment is kept. A link without UTM tags gets its URL back unchanged.

export interface UtmTags {
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
}

function paramName(segment: string): string {
  const eq = segment.indexOf('=');
  const raw = (eq === -1 ? segment : segment.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function applyUtm(url: string, tags: UtmTags): string {
  const wanted: [string, string][] = [];
  if (tags.utmSource !== null && tags.utmSource !== '') wanted.push(['utm_source', tags.utmSource]);
  if (tags.utmMedium !== null && tags.utmMedium !== '') wanted.push(['utm_medium', tags.utmMedium]);
  if (tags.utmCampaign !== null && tags.utmCampaign !== '') wanted.push(['utm_campaign', tags.utmCampaign]);
  if (wanted.length === 0) return url;

  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? '' : beforeHash.slice(queryAt + 1);

  const values = new Map(wanted);
  const placed = new Set<string>();
  const out: string[] = [];
  for (const segment of query === '' ? [] : query.split('&')) {
    const name = paramName(segment);
    const value = values.get(name);
    if (value === undefined) {
      out.push(segment);
    } else if (!placed.has(name)) {
      placed.add(name);
      out.push(`${name}=${encodeURIComponent(value)}`);
    }
  }
  for (const [name, value] of wanted) if (!placed.has(name)) out.push(`${name}=${encodeURIComponent(value)}`);
  return `${base}?${out.join('&')}${fragment}`;
}
