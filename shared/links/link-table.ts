// Invariant: the links table is named here once, member by member (LINK_COLUMNS: Link member →
// column), and every statement that reads or writes links takes its column list from this map:
// LINK_SELECT reads StoredLink rows (aliased to the member names, domain host and preview
// joined), and the write helpers turn Link members into columns. A member added to the Link
// schema without a column here fails to type-check.
import type { Sql, Tx } from '../db/database.ts';
import type { StoredLink } from './link.ts';

/** Stored members that are plain columns of `links` (the joined domainHost and preview are not). */
type ColumnMember = Exclude<keyof StoredLink, 'domainHost' | 'preview'>;

export const LINK_COLUMNS = {
  id: 'id',
  orgId: 'org_id',
  shortCode: 'short_code',
  url: 'url',
  shortLinkName: 'short_link_name',
  domainId: 'domain_id',
  isActive: 'is_active',
  cloakEnabled: 'cloak_enabled',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  utmCampaign: 'utm_campaign',
  enableCustomMetadata: 'enable_custom_metadata',
  customMetadataTitle: 'custom_metadata_title',
  customMetadataDescription: 'custom_metadata_description',
  customMetadataImageUrl: 'custom_metadata_image_url',
  deepLinks: 'deep_links',
  expiresAt: 'expires_at',
  maxClicks: 'max_clicks',
  expiredUrl: 'expired_url',
  passwordHash: 'password_hash',
  rules: 'rules',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  createdBy: 'created_by',
  updatedBy: 'updated_by',
  createdVia: 'created_via',
  lastModifiedVia: 'last_modified_via',
} as const satisfies Record<ColumnMember, string>;

const aliased = (Object.entries(LINK_COLUMNS) as [ColumnMember, string][]).map(([member, column]) =>
  member === 'domainId' ? `l.${column}::int as "${member}"` : `l.${column} as "${member}"`,
);

/**
 * SELECT … FROM `relation` (alias l; the links table, or a CTE of rows just written), domains d
 * (active only) and destination_previews p, yielding StoredLink rows; append WHERE/ORDER as
 * needed. The preview is one json object or null.
 */
export function linkSelectFrom(relation: string): string {
  return `
  select ${aliased.join(', ')},
         d.host as "domainHost",
         case when p.url is null then null else json_build_object(
           'title', p.title, 'description', p.description, 'imageUrl', p.image_url, 'frameRefused', p.frame_refused) end as "preview"
  from ${relation} l
  left join domains d on d.id = l.domain_id and d.active
  left join destination_previews p on p.url = l.url`;
}

/** linkSelectFrom the links table. */
export const LINK_SELECT = linkSelectFrom('links');

/** The column of a member, for statements that compare a member (e.g. the list DSL). */
export function linkColumn(member: ColumnMember): string {
  return LINK_COLUMNS[member];
}

/** Members a writer sets (ids and timestamps are the database's). */
export type LinkWrite = Partial<Omit<Pick<StoredLink, ColumnMember>, 'id' | 'createdAt' | 'updatedAt'>>;

/** The row of columns for postgres.js's insert/update helpers (deep links and rules as jsonb). */
export function linkWriteColumns(sql: Sql | Tx, w: LinkWrite): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(w) as [keyof LinkWrite, unknown][]) {
    if (value === undefined) continue;
    out[LINK_COLUMNS[member]] = member === 'deepLinks' || member === 'rules' ? sql.json(value as Parameters<Sql['json']>[0]) : value;
  }
  return out;
}
