// Invariant: every signed-in page sits in this shell: a skip link, the organisation switcher,
// the navigation (nav.ts) and sign-out, and the page in <main>. Keyboard order follows the page.
import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useId } from 'react';
import { call } from '../api.ts';
import { NAV } from '../nav.ts';
import { may, useSession, useSetSession } from '../session.ts';

export function Shell() {
  const view = useSession();
  const setSession = useSetSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const orgSelect = useId();
  const signOut = async () => {
    await call('signOut').catch(() => undefined);
    client.clear();
    setSession(null);
    await navigate({ to: '/sign-in', search: { redirect: undefined } });
  };
  const switchOrg = async (orgId: string) => {
    const next = await call('switchOrg', { body: { orgId } });
    client.clear();
    setSession(next);
  };
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">shortlink</span>
        {view.orgs.length > 1 ? (
          <span className="org-switch">
            <label htmlFor={orgSelect}>Organisation</label>
            <select id={orgSelect} value={view.org?.id ?? ''} onChange={(e) => void switchOrg(e.target.value)}>
              {view.orgs.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name} ({o.role})
                </option>
              ))}
            </select>
          </span>
        ) : (
          <span className="org-name">{view.org ? `${view.org.name} (${view.org.role})` : 'No organisation'}</span>
        )}
        <span className="user">{view.user.email}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main">
        <ul>
          {NAV.filter((item) => !item.permission || may(view, item.permission)).map((item) => (
            <li key={item.to}>
              <Link to={item.to} activeProps={{ 'aria-current': 'page' }}>
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
