// Invariant: keys are looked up only by the hash of their value; a revoked key is never
// returned, and revocation is permanent (no code path clears revoked_at). A created key is
// announced in-process (key-created.ts) once its row is committed.
import type { Sql } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { duplicateLabel } from '../errors/domain-errors.ts';
import { ORG_COLUMNS, organizationFromRow, type OrganizationRow } from '../orgs/organization.ts';
import { generateApiKey, hashApiKey, KEY_LABEL_PATTERN } from './api-key.ts';
import { DEFAULT_SCOPES, type Scope } from './model/scopes.ts';
import type { KeyLookup, Principal } from './principal.ts';
import { announceKeyCreated } from './key-created.ts';

export interface ApiKeyInfo {
  id: string;
  label: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
  /** Who created it (a dashboard user's e-mail); null for keys of the admin CLI or older ones. */
  createdBy: string | null;
  /** The minute of its last accepted use, or null. */
  lastUsedAt: string | null;
}

type KeyRow = {
  id: string;
  label: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
  created_by: string | null;
  last_used_at: string | null;
};
const keyInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  label: r.label,
  scopes: r.scopes,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  createdBy: r.created_by,
  lastUsedAt: r.last_used_at,
});

const UNIQUE_VIOLATION = '23505';

export async function createApiKey(
  sql: Sql,
  orgId: string,
  label: string,
  scopes: readonly Scope[] = DEFAULT_SCOPES,
  createdBy: string | null = null,
): Promise<{ id: string; label: string; key: string; scopes: Scope[] }> {
  if (!KEY_LABEL_PATTERN.test(label)) {
    throw new AppError('SML002', 'label: must be 3 to 100 characters of letters, digits, spaces and . , _ - ( )');
  }
  const key = generateApiKey();
  const keyHash = hashApiKey(key);
  try {
    const [row] = await sql<{ id: string }[]>`
      insert into api_keys (org_id, label, key_hash, scopes, created_by)
      values (${orgId}, ${label}, ${keyHash}, ${[...scopes]}, ${createdBy})
      returning id`;
    announceKeyCreated(keyHash);
    if (!row) throw new Error('insert into api_keys returned no row');
    return { id: row.id, label, key, scopes: [...scopes] };
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw duplicateLabel();
    throw err;
  }
}

export async function revokeApiKey(sql: Sql, orgId: string, label: string): Promise<ApiKeyInfo> {
  const [row] = await sql<KeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now())
    where org_id = ${orgId} and label = ${label}
    returning id, label, scopes, created_at, revoked_at, created_by, last_used_at`;
  if (!row) throw new AppError('EN001', `API key with label '${label}' not found`);
  return keyInfo(row);
}

export async function listApiKeys(sql: Sql, orgId: string): Promise<ApiKeyInfo[]> {
  const rows = await sql<KeyRow[]>`
    select id, label, scopes, created_at, revoked_at, created_by, last_used_at from api_keys where org_id = ${orgId} order by created_at, label`;
  return rows.map(keyInfo);
}

/**
 * The principal of an active key, by the hash of its value; null for an unknown or revoked key.
 * The lookup also records the key's use at minute precision (a write at most once a minute per
 * key: the update matches no row while last_used_at is this minute).
 */
export async function findPrincipalByKeyHash(sql: Sql, keyHash: string): Promise<Principal | null> {
  const [row] = await sql<(OrganizationRow & { key_id: string; label: string; scopes: Scope[] })[]>`
    with touched as (
      update api_keys set last_used_at = date_trunc('minute', now())
      where key_hash = ${keyHash} and revoked_at is null and (last_used_at is null or last_used_at < date_trunc('minute', now()))
      returning id
    )
    select k.id as key_id, k.label, k.scopes, ${sql.unsafe(
      ORG_COLUMNS.split(', ')
        .map((c) => `o.${c}`)
        .join(', '),
    )}
    from api_keys k join organizations o on o.id = k.org_id
    where k.key_hash = ${keyHash} and k.revoked_at is null`;
  return row ? { keyId: row.key_id, label: row.label, scopes: row.scopes, org: organizationFromRow(row) } : null;
}

/** The key store on Postgres, as the authenticator's lookup port. */
export function postgresKeyLookup(sql: Sql): KeyLookup {
  return { findByHash: (keyHash) => findPrincipalByKeyHash(sql, keyHash) };
}
