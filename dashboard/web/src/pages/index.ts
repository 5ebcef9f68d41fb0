// Invariant: the one page registry. A page exports its route (a child of appRoute when it needs a
// signed-in user, with `staticData.nav` when it is listed in the navigation) and is named once
// here; the route tree and the navigation (NAV, in this order) both come from these lists.
import { createRoute, redirect } from '@tanstack/react-router';
import { appRoute, rootRoute } from '../routes/root.tsx';
import type { NavItem } from '../ui/Shell.tsx';
import { accountRoute } from './Account.tsx';
import { analyticsRoute } from './Analytics.tsx';
import { appsRoute } from './Apps.tsx';
import { domainsRoute } from './Domains.tsx';
import { inviteRoute } from './Invite.tsx';
import { keysRoute } from './Keys.tsx';
import { editLinkRoute, newLinkRoute } from './link-editor/LinkEditor.tsx';
import { linksRoute } from './Links.tsx';
import { membersRoute } from './Members.tsx';
import { settingsRoute } from './Settings.tsx';
import { secondFactorRoute, signInRoute } from './SignIn.tsx';
import { signUpRoute } from './SignUp.tsx';
import { usageRoute } from './Usage.tsx';
import { webhooksRoute } from './Webhooks.tsx';

const indexRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/links' });
  },
});

/** Pages without a session. */
const PUBLIC_PAGES = [signInRoute, secondFactorRoute, signUpRoute, inviteRoute] as const;

/** Signed-in pages; those with `staticData.nav` are the navigation, in this order. */
const APP_PAGES = [
  linksRoute,
  newLinkRoute,
  editLinkRoute,
  analyticsRoute,
  keysRoute,
  appsRoute,
  domainsRoute,
  webhooksRoute,
  membersRoute,
  usageRoute,
  settingsRoute,
  accountRoute,
] as const;

export const NAV: readonly NavItem[] = APP_PAGES.flatMap((route) => {
  const entry = route.options.staticData?.nav;
  // A route's full path exists once the router has built the tree: it is read when a link renders.
  return entry
    ? [
        {
          ...entry,
          get to() {
            return route.fullPath;
          },
        },
      ]
    : [];
});

export const routeTree = rootRoute.addChildren([...PUBLIC_PAGES, appRoute.addChildren([indexRoute, ...APP_PAGES])]);
