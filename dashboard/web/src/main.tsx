import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, setSignInHandler } from './api.ts';
import { NAV, routeTree } from './pages/index.ts';
import { sessionQuery } from './session.ts';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2, refetchOnWindowFocus: false },
  },
});

const router = createRouter({ routeTree, context: { queryClient, nav: NAV }, defaultPreload: false, scrollRestoration: true });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

// A stale session anywhere: back to sign-in, then to where the user was.
setSignInHandler(() => {
  const here = router.state.location.href;
  queryClient.setQueryData(sessionQuery.queryKey, null);
  if (!here.startsWith('/sign-in')) void router.navigate({ to: '/sign-in', search: { redirect: here } });
});

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
