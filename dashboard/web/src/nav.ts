// Invariant: the navigation is this list, in order. A page adds its entry here and its route in
// pages/index.ts; `permission` hides the entry from roles that may not use it (the server refuses
// them anyway).
export interface NavItem {
  to: string;
  label: string;
  permission?: string;
}

export const NAV: NavItem[] = [
  { to: '/links', label: 'Links' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/keys', label: 'API keys', permission: 'integrations:manage' },
  { to: '/apps', label: 'Mobile apps' },
  { to: '/domains', label: 'Domains' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/members', label: 'Members' },
  { to: '/usage', label: 'Usage' },
  { to: '/settings', label: 'Settings' },
  { to: '/account', label: 'Your account' },
];
