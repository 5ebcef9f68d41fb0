// Invariant: the navigation is this list, in order. A page adds its entry here and its route in
// pages/index.ts; `permission` hides the entry from roles that may not use it (the server refuses
// them anyway). Analytics and webhooks pages plug in here.
export interface NavItem {
  to: string;
  label: string;
  permission?: string;
}

export const NAV: NavItem[] = [
  { to: '/links', label: 'Links' },
  { to: '/account', label: 'Your account' },
];
