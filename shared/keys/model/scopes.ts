// Invariant: the one list of API key scopes, and which a new key gets unless told otherwise
// (analytics:delete, purging events, only on request). Browser-safe: imports nothing.

/** Every scope a key can carry. */
export const SCOPES = ['links:read', 'links:write', 'analytics:read', 'analytics:export', 'analytics:delete'] as const;
export type Scope = (typeof SCOPES)[number];
/** What a new key gets unless told otherwise. */
export const DEFAULT_SCOPES: readonly Scope[] = ['links:read', 'links:write', 'analytics:read', 'analytics:export'];
/** What each scope allows, in a few words (the dashboard's Keys page shows it). */
export const SCOPE_TEXT: Record<Scope, string> = {
  'links:read': 'List and resolve links.',
  'links:write': 'Create, change and delete links.',
  'analytics:read': 'Browse, sync and aggregate analytics events.',
  'analytics:export': 'Export analytics events.',
  'analytics:delete': 'Purge analytics events for good. Not given unless ticked.',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
