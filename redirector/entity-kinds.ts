// Invariant: the four kinds of entity the redirector caches, each under its own key (link by
// short code, organisation by id, app by mobileAppId, custom domain by host), so every
// invalidation names exactly the keys to drop.
export const ENTITY_KINDS = ['link', 'org', 'app', 'domain'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
