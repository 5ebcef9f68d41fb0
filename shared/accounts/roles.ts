// Invariant: the dashboard's roles table (owner, admin, member, viewer) lives here and nowhere
// else; the server refuses (403) every action a role may not take, whatever the page shows.
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type Permission =
  /** see links, analytics, apps, domains, usage */
  | 'read'
  /** create, edit, archive and restore links */
  | 'links:write'
  /** API keys, mobile apps, custom domains */
  | 'integrations:manage'
  /** invite, remove, change roles (admins: not of owners) */
  | 'members:manage'
  /** organisation settings (name, time zone, 2FA rule) */
  | 'org:settings';

const TABLE: Record<Permission, readonly Role[]> = {
  read: ['owner', 'admin', 'member', 'viewer'],
  'links:write': ['owner', 'admin', 'member'],
  'integrations:manage': ['owner', 'admin'],
  'members:manage': ['owner', 'admin'],
  'org:settings': ['owner'],
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleMay(role: Role, permission: Permission): boolean {
  return TABLE[permission].includes(role);
}

/** Every permission of a role (the page shows what the server allows). */
export function permissionsOf(role: Role): Permission[] {
  return (Object.keys(TABLE) as Permission[]).filter((p) => roleMay(role, p));
}

/** Admins manage members and invites, but never owners, and never make someone an owner. */
export function mayManageRole(actor: Role, target: Role): boolean {
  if (!roleMay(actor, 'members:manage')) return false;
  return actor === 'owner' || target !== 'owner';
}
