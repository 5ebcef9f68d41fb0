// Invariant: the route tree. A new page exports its route (a child of appRoute when it needs a
// signed-in user) and is listed here, and its navigation entry goes into nav.ts.
import { createRoute, redirect } from '@tanstack/react-router';
import { appRoute, rootRoute } from '../routes/root.tsx';
import { accountRoute } from './Account.tsx';
import { analyticsRoute } from './Analytics.tsx';
import { appsRoute } from './Apps.tsx';
import { domainsRoute } from './Domains.tsx';
import { keysRoute } from './Keys.tsx';
import { membersRoute } from './Members.tsx';
import { settingsRoute } from './Settings.tsx';
import { usageRoute } from './Usage.tsx';
import { webhooksRoute } from './Webhooks.tsx';
import { inviteRoute } from './Invite.tsx';
import { editLinkRoute, newLinkRoute } from './LinkEditor.tsx';
import { linksRoute } from './Links.tsx';
import { secondFactorRoute, signInRoute } from './SignIn.tsx';
import { signUpRoute } from './SignUp.tsx';

const indexRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/links' });
  },
});

export const routeTree = rootRoute.addChildren([
  signInRoute,
  secondFactorRoute,
  signUpRoute,
  inviteRoute,
  appRoute.addChildren([
    indexRoute,
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
  ]),
]);
