// Invariant: every signed-in page sits in this shell: a skip link, the organisation switcher,
// the navigation (the router context's, from pages/index.ts) and sign-out, and the page in <main>. Keyboard order follows the page.
// On a narrow screen (styles.css, 48rem) the navigation folds behind a Menu disclosure button
// (closed again on every page change); sign-out stays in the header.
import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate, useRouter, useRouterState } from '@tanstack/react-router';
import { useEffect, useId, useState } from 'react';
import { call } from '../api.ts';
import { useWrite } from '../data/use-write.ts';
import { may, useSession, useSetSession } from '../session.ts';
import { Button } from './Button.tsx';
import { Feedback } from './Feedback.tsx';

/** A page's navigation entry: its label, and the permission without which it is not listed. */
export interface NavEntry {
  label: string;
  permission?: string;
}

export interface NavItem extends NavEntry {
  to: string;
}

export function Shell() {
  const view = useSession();
  const nav = useRouter().options.context?.nav ?? [];
  const setSession = useSetSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const orgSelect = useId();
  const navId = useId();
  const [menuOpen, setMenuOpen] = useState(false);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the page changing is what closes the menu
  useEffect(() => setMenuOpen(false), [pathname]);
  const signOut = useWrite({
    // Signed out here whatever the server answers (the session may have ended already).
    run: () => call('signOut').catch(() => undefined),
    onDone: async () => {
      client.clear();
      setSession(null);
      await navigate({ to: '/sign-in', search: { redirect: undefined } });
    },
  });
  const switchOrg = useWrite({
    run: (orgId: string) => call('switchOrg', { body: { orgId } }),
    onDone: (next) => {
      client.clear();
      setSession(next);
    },
  });
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">shortlink</span>
        <Button variant="secondary" className="nav-toggle" aria-expanded={menuOpen} aria-controls={navId} onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </Button>
        {view.orgs.length > 1 ? (
          <span className="org-switch">
            <label htmlFor={orgSelect}>Organisation</label>
            <select id={orgSelect} value={view.org?.id ?? ''} onChange={(e) => switchOrg.mutate(e.target.value)}>
              {view.orgs.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name} ({o.role})
                </option>
              ))}
            </select>
            <Feedback outcome={switchOrg.outcome} inline />
          </span>
        ) : (
          <span className="org-name">{view.org ? `${view.org.name} (${view.org.role})` : 'No organisation'}</span>
        )}
        <span className="user">{view.user.email}</span>
        <Button onClick={() => signOut.mutate()}>Sign out</Button>
      </header>
      <nav aria-label="Main" id={navId} className={menuOpen ? 'main-nav open' : 'main-nav'}>
        <ul>
          {nav
            .filter((item) => !item.permission || may(view, item.permission))
            .map((item) => (
              <li key={item.to}>
                <Link to={item.to} activeProps={{ 'aria-current': 'page' }} onClick={() => setMenuOpen(false)}>
                  {item.label}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {view.org?.require2fa && !view.user.twoFactor ? (
          <p className="notice" role="status">
            {view.org.name} requires two-factor authentication: set it up on <Link to="/account">Your account</Link> to use its pages.
          </p>
        ) : null}
        <Outlet />
      </main>
    </div>
  );
}
