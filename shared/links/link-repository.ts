// Invariant: links are read only through linkSelectFrom, and every row becomes a Link through
// buildLink once, here: the stored deep links and rules are validated (malformed entries are dropped), so
// every cache holds well-formed Links. Reads are by short code, one or many per statement, and
// are prepared statements (the redirect path runs them on every cache miss). A write returns the
// row it wrote, joined like a read, in the same statement.
import type { Sql, Tx } from '../db/database.ts';
import { buildLink, parseDeepLinks, type Link, type StoredLink } from './link.ts';
import { parseRules } from './link-rules.ts';
import { LINK_SELECT, linkSelectFrom, linkWriteColumns, type LinkWrite } from './link-table.ts';

/** A LINK_SELECT row: deep links are jsonb and still unchecked. */
export type StoredLinkRow = Omit<StoredLink, 'deepLinks' | 'rules'> & { deepLinks: unknown; rules: unknown };

export function linkFromRow(row: StoredLinkRow): Link {
  return buildLink({ ...row, deepLinks: parseDeepLinks(row.deepLinks), rules: parseRules(row.rules) });
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

/**
 * True when `shortCode` belonged to a deleted link (deleted_short_codes). Asked after
 * lockLinkByCode found no row: a delete that held the row has committed its tombstone by then.
 */
export async function isDeletedShortCode(sql: Sql | Tx, shortCode: string): Promise<boolean> {
  const rows = await sql.unsafe('select 1 from deleted_short_codes where short_code = $1', [shortCode], { prepare: true });
  return rows.length > 0;
}

/** The links with these ids, each locked for the rest of the transaction; ids locked elsewhere are skipped. */
export async function lockLinksByIdSkipLocked(tx: Tx, ids: readonly string[]): Promise<Link[]> {
  const rows = await tx.unsafe<StoredLinkRow[]>(`${LINK_SELECT} where l.id = any($1::uuid[]) for update of l skip locked`, [ids as string[]]);
  return rows.map(linkFromRow);
}

/** The rows a write statement's `written` CTE returns, read like LINK_SELECT. */
const WRITTEN_SELECT = linkSelectFrom('written');

/** Inserts the link; null when its short code exists already (nothing written). */
export async function insertLink(tx: Tx, write: LinkWrite): Promise<Link | null> {
  const [row] = await tx<StoredLinkRow[]>`
    with written as (insert into links ${tx(linkWriteColumns(tx, write))} on conflict (short_code) do nothing returning *)
    ${tx.unsafe(WRITTEN_SELECT)}`;
  return row ? linkFromRow(row) : null;
}

/** Sets the members of `write` on the link `id` (stamping updated_at) and returns the link as written. */
export async function updateLink(tx: Tx, id: string, write: LinkWrite): Promise<Link> {
  const [row] = await tx<StoredLinkRow[]>`
    with written as (update links set ${tx(linkWriteColumns(tx, write))}, updated_at = clock_timestamp() where id = ${id} returning *)
    ${tx.unsafe(WRITTEN_SELECT)}`;
  if (!row) throw new Error(`link ${id} vanished while locked`);
  return linkFromRow(row);
}
