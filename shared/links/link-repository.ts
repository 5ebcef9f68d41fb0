// Invariant: links are read only through LINK_SELECT, and every row becomes a Link through
// buildLink once, here: the stored deep links are validated (malformed entries are dropped), so
// every cache holds well-formed Links. Reads are by short code, one or many per statement, and
// are prepared statements (the redirect path runs them on every cache miss).
import type { Sql, Tx } from '../db/database.ts';
import { buildLink, parseDeepLinks, type Link, type StoredLink } from './link.ts';
import { LINK_SELECT } from './link-table.ts';

/** A LINK_SELECT row: deep links are jsonb and still unchecked. */
export type StoredLinkRow = Omit<StoredLink, 'deepLinks'> & { deepLinks: unknown };

export function linkFromRow(row: StoredLinkRow): Link {
  return buildLink({ ...row, deepLinks: parseDeepLinks(row.deepLinks) });
}

export async function findLinkByCode(sql: Sql | Tx, shortCode: string): Promise<Link | null> {
  const [row] = await sql.unsafe<StoredLinkRow[]>(`${LINK_SELECT} where l.short_code = $1`, [shortCode], { prepare: true });
  return row ? linkFromRow(row) : null;
}

/** Links by short code, one statement for many codes (the redirect path's batch loads). */
export async function findLinksByCodes(sql: Sql, shortCodes: readonly string[]): Promise<Map<string, Link>> {
  const rows = await sql.unsafe<StoredLinkRow[]>(`${LINK_SELECT} where l.short_code = any($1::text[])`, [shortCodes as string[]], { prepare: true });
  return new Map(rows.map((row) => [row.shortCode, linkFromRow(row)]));
}

/** The link with this code, locked for the rest of the transaction (the link row only). */
export async function lockLinkByCode(tx: Tx, shortCode: string): Promise<Link | null> {
  const [row] = await tx.unsafe<StoredLinkRow[]>(`${LINK_SELECT} where l.short_code = $1 for update of l`, [shortCode], { prepare: true });
  return row ? linkFromRow(row) : null;
}
