// Invariant: the signed-in user's view (role, permissions, organisation) comes from the server
// and is cached under one query key; whatever changes the session writes the new view there.
import { queryOptions, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import type { SessionView } from '../../contract/schemas.ts';
import { ApiError, call, setCsrfToken } from './api.ts';
import { keys } from './data/queries.ts';

export const sessionQuery = queryOptions({
  queryKey: keys.session(),
  queryFn: async (): Promise<SessionView | null> => {
    try {
      const view = await call('session');
      setCsrfToken(view.csrfToken);
      return view;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'AU001') return null;
      throw err;
    }
  },
  staleTime: 60_000,
});

export function useSession(): SessionView {
  const { data } = useSuspenseQuery(sessionQuery);
  if (!data) throw new Error('no session');
  return data;
}

/** Stores a session view the server just answered (sign-in, password change, org switch). */
export function useSetSession(): (view: SessionView | null) => void {
  const client = useQueryClient();
  return (view) => {
    if (view) setCsrfToken(view.csrfToken);
    client.setQueryData(sessionQuery.queryKey, view);
  };
}

export function may(view: SessionView, permission: string): boolean {
  return view.org?.permissions.includes(permission) ?? false;
}
