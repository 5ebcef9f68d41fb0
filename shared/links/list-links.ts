// Invariant: the list endpoint reads only the caller's organisation, ordered by createdAt
// descending then by insertion sequence (stable across pages), and never answers 404: no match is
// an empty page. size is 1…100, page 0…1,000,000 (DECISIONS; beyond is VE001).
import { findAppsForOrg } from '../apps/find-apps-for-org.ts';
import type { Sql } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { constraintViolated } from '../errors/domain-errors.ts';
import { compileListQuery } from './list-query/list-query-sql.ts';
import { parseListQuery } from './list-query/list-query-parser.ts';
import { linkFromRow, type StoredLinkRow } from './link-repository.ts';
import { toLinkResponse, type ListResponse } from './link-response.ts';
import { LINK_SELECT } from './link-table.ts';

export interface ListRequest {
  page: number;
  size: number;
  query: string | null;
}

/**
 * A decimal integer of at most 9 digits (anything longer cannot be in range and is never
 * converted, so it cannot lose precision or wrap). Below `min` or above `max` is a constraint
 * (SML002), except for `page`, whose upper bound is a representable-range limit (VE001).
 */
function intParam(name: string, raw: unknown, fallback: number, min: number, max: number, beyondMax: 'SML002' | 'VE001' = 'SML002'): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw.trim())) throw new AppError('VE001', `${name}: must be an integer`);
  const digits = raw.trim().replace(/^-?0*/, '');
  if (digits.length > 9) throw new AppError('VE001', `${name}: must be an integer between ${min} and ${max}`);
  const n = Number(raw.trim());
  if (n > max && beyondMax === 'VE001') throw new AppError('VE001', `${name}: must be an integer between ${min} and ${max}`);
  if (n < min || n > max)
    throw constraintViolated(name === 'page' ? `${name}: must be greater than or equal to ${min}` : `${name}: size must be between ${min} and ${max}`);
  return n;
}

/** List page size bounds (DECISIONS: size 1…100, default 20). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** The last page number a list request may ask for (offset at most 10^8 rows). */
export const MAX_PAGE = 1_000_000;

export function parseListRequest(query: Record<string, unknown>): ListRequest {
  const q = query.query;
  if (q !== undefined && typeof q !== 'string') throw new AppError('VE001', 'query: must be given once');
  return {
    page: intParam('page', query.page, 0, 0, MAX_PAGE, 'VE001'),
    size: intParam('size', query.size, DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
    query: q === undefined || q.trim() === '' ? null : q,
  };
}

export async function listLinks(sql: Sql, orgId: string, req: ListRequest, shortLinkBase: string): Promise<ListResponse> {
  const node = req.query === null ? null : parseListQuery(req.query);
  const where = node === null ? sql`true` : compileListQuery(node, sql, { shortLinkBase });
  const [count] = await sql<{ total: number }[]>`
    select count(*)::int as total from links l left join domains d on d.id = l.domain_id and d.active
    where l.org_id = ${orgId} and ${where}`;
  const totalElements = count?.total ?? 0;
  const rows = await sql<StoredLinkRow[]>`
    ${sql.unsafe(LINK_SELECT)} where l.org_id = ${orgId} and ${where}
    order by l.created_at desc, l.seq desc
    limit ${req.size} offset ${req.page * req.size}`;
  const links = rows.map(linkFromRow);
  const apps = await findAppsForOrg(sql, orgId, links);
  return {
    data: links.map((l) => toLinkResponse(l, apps, { shortLinkBase, includeAppId: false })),
    page: { size: req.size, number: req.page, totalElements, totalPages: Math.ceil(totalElements / req.size) },
  };
}
