import { createRoute } from '@tanstack/react-router';
import { appRoute } from '../routes/root.tsx';

export const linksRoute = createRoute({ getParentRoute: () => appRoute, path: '/links', component: LinksPage });

function LinksPage() {
  return (
    <>
      <h1>Links</h1>
      <p>Your organisation's short links.</p>
    </>
  );
}
