// Invariant: the route tree's root and the signed-in area. Every page under `appRoute` needs a
// full session: without one the router goes to sign-in with `redirect` set to where the user was.
import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, Outlet, redirect } from '@tanstack/react-router';
import { sessionQuery } from '../session.ts';
import { type NavEntry, type NavItem, Shell } from '../ui/Shell.tsx';

export interface RouterContext {
  queryClient: QueryClient;
  /** The navigation, in order (pages/index.ts derives it from the pages' routes). */
  nav: readonly NavItem[];
}

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The page's entry in the navigation; none: not listed there. */
    nav?: NavEntry;
  }
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({ component: Outlet });

/** Only same-origin paths are followed after sign-in. */
export function safeRedirect(target: string | undefined): string {
  return target?.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\') ? target : '/links';
}

export const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ context, location }) => {
    const view = await context.queryClient.ensureQueryData(sessionQuery);
    if (!view) throw redirect({ to: '/sign-in', search: { redirect: location.href } });
    if (view.stage === 'second_factor') throw redirect({ to: '/sign-in/code', search: { redirect: location.href } });
  },
  component: Shell,
});
