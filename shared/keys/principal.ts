// Invariant: an authenticated API key is a Principal: the key's id, label and scopes, and its
// organisation as read with it. The key store is seen through KeyLookup: one lookup by the hash
// of a key's value (never the value), answering null for a key that is unknown or revoked.
import type { Organization } from '../orgs/organization.ts';
import type { Scope } from './model/scopes.ts';

export interface Principal {
  keyId: string;
  label: string;
  scopes: readonly Scope[];
  org: Organization;
}

/** The key store as the authenticator sees it: one lookup by hash. */
export interface KeyLookup {
  findByHash(keyHash: string): Promise<Principal | null>;
}
