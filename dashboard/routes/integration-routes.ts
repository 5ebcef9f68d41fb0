// Invariant: API keys and mobile apps on the dashboard (owners and admins). A key's value is in
// one answer only, the one that creates it; lists carry labels, scopes, who created it, its last
// use and status, never a value or hash. A revoked key is refused by the API's next request (known
// keys are never cached). App changes commit with their invalidation, like the admin CLI's.
import type { FastifyInstance } from 'fastify';
import { listApps, registerApp, removeApp, updateStoreUrl, type MobileApp } from '../../shared/apps/mobile-app-repository.ts';
import { AppError } from '../../shared/errors/app-error.ts';
import { KEY_LABEL_PATTERN } from '../../shared/keys/api-key.ts';
import { SCOPES } from '../../shared/keys/model/scopes.ts';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyInfo } from '../../shared/keys/key-repository.ts';
import { hasControlCharacter } from '../../shared/links/url-rules.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { orgIdOf, route, sessionOf } from '../http/route.ts';

const field = (name: string, message: string, code: 'VE001' | 'SML002' | 'SML004' = 'VE001') => new AppError(code, `${name}: ${message}`, { field: name });

const keyView = (k: ApiKeyInfo) => ({
  id: k.id,
  label: k.label,
  scopes: k.scopes,
  createdAt: k.createdAt,
  createdBy: k.createdBy,
  lastUsedAt: k.lastUsedAt,
  status: k.revokedAt ? ('revoked' as const) : ('active' as const),
});

const appView = (a: MobileApp) => ({ mobileAppId: a.mobileAppId, name: a.name, platform: a.platform, storeUrl: a.storeUrl, active: a.active });

/** Store URLs are https, absolute, at most 2,048 characters, no control characters. */
function storeUrl(value: string): string {
  const v = value.trim();
  let url: URL | null = null;
  try {
    url = new URL(v);
  } catch {
    url = null;
  }
  if (url === null || url.protocol !== 'https:' || v.length > 2048 || hasControlCharacter(v) || url.hostname === '') {
    throw field('storeUrl', 'must be an absolute https URL of at most 2,048 characters (e.g. https://apps.apple.com/app/id123)');
  }
  return v;
}

export function registerIntegrationRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  route(app, 'keys', 'integrations:manage', async ({ request }) => ({ keys: (await listApiKeys(deps.sql, orgIdOf(request))).map(keyView) }));

  route(app, 'createKey', 'integrations:manage', async ({ body, request }) => {
    const label = body.label.trim();
    if (!KEY_LABEL_PATTERN.test(label)) throw field('label', 'must be 3 to 100 characters of letters, digits, spaces and . , _ - ( )', 'SML002');
    if (body.scopes.length === 0) throw field('scopes', 'choose at least one scope');
    const scopes = SCOPES.filter((s) => body.scopes.includes(s));
    let created: Awaited<ReturnType<typeof createApiKey>>;
    try {
      created = await createApiKey(deps.sql, orgIdOf(request), label, scopes, sessionOf(request).email);
    } catch (err) {
      if (err instanceof AppError && err.code === 'SML004')
        throw field('label', 'another key of this organisation has this label (labels stay taken after a key is revoked)', 'SML004');
      throw err;
    }
    const info = (await listApiKeys(deps.sql, orgIdOf(request))).find((k) => k.id === created.id);
    if (!info) throw new AppError('SML001');
    return { key: created.key, view: keyView(info) };
  });

  route(app, 'revokeKey', 'integrations:manage', async ({ params, request }) => {
    const key = (await listApiKeys(deps.sql, orgIdOf(request))).find((k) => k.id === params.id);
    if (!key) throw new AppError('EN001', 'API key not found');
    return keyView(await revokeApiKey(deps.sql, orgIdOf(request), key.label));
  });

  route(app, 'registerApp', 'integrations:manage', async ({ body, request }) => {
    const name = body.name.trim();
    if (name === '' || name.length > 100) throw field('name', 'must be 1 to 100 characters');
    return appView(await registerApp(deps.sql, { orgId: orgIdOf(request), name, platform: body.platform, storeUrl: storeUrl(body.storeUrl) }));
  });

  const ownApp = async (orgId: string, id: string) => {
    const found = (await listApps(deps.sql, orgId)).find((a) => a.mobileAppId === id && a.active);
    if (!found) throw new AppError('EN001', `Mobile app '${id}' not found`);
    return found;
  };

  route(app, 'updateApp', 'integrations:manage', async ({ body, params, request }) => {
    const found = await ownApp(orgIdOf(request), params.id);
    return appView(await updateStoreUrl(deps.sql, found.orgId, found.mobileAppId, storeUrl(body.storeUrl)));
  });

  route(app, 'removeApp', 'integrations:manage', async ({ params, request }) => {
    const found = await ownApp(orgIdOf(request), params.id);
    return appView(await removeApp(deps.sql, found.orgId, found.mobileAppId));
  });
}
