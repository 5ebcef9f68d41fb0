// Invariant: webhooks on the dashboard. Everyone sees the endpoints (a secret's last 4 only) and
// their attempt log; owners and admins add or edit (the URL through the address policy), enable
// or disable, rotate, reveal the secret, send a test event, replay a message or an endpoint's
// messages of a time range, and remove. Every
// action names an endpoint or message of the session's organisation (EN001 otherwise).
import type { FastifyInstance } from 'fastify';
import { WEBHOOK_EVENT_TYPES } from '../../shared/webhooks/webhook-events.ts';
import {
  addEndpoint,
  findEndpoint,
  listAttempts,
  listEndpoints,
  removeEndpoint,
  revealSecret,
  rotateSecret,
  setEndpointEnabled,
  updateEndpoint,
} from '../../shared/webhooks/webhook-repository.ts';
import { replayEndpointRange, replayMessages, sendTestEvent } from '../../shared/webhooks/webhook-actions.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { orgIdOf, route } from '../http/route.ts';

export function registerWebhookRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { sql, webhooks: settings } = deps;
  route(app, 'webhooks', 'read', async ({ request }) => ({ endpoints: await listEndpoints(sql, orgIdOf(request)), eventTypes: [...WEBHOOK_EVENT_TYPES] }));
  route(app, 'addWebhook', 'integrations:manage', async ({ body, request }) => addEndpoint(sql, settings, orgIdOf(request), body));
  route(app, 'updateWebhook', 'integrations:manage', async ({ body, params, request }) => updateEndpoint(sql, settings, orgIdOf(request), params.id, body));
  route(app, 'replayWebhookRange', 'integrations:manage', async ({ body, params, request }) => ({
    replayed: await replayEndpointRange(sql, orgIdOf(request), params.id, body),
  }));
  route(app, 'webhookEnabled', 'integrations:manage', async ({ body, params, request }) => setEndpointEnabled(sql, orgIdOf(request), params.id, body.enabled));
  route(app, 'rotateWebhook', 'integrations:manage', async ({ params, request }) => rotateSecret(sql, settings, orgIdOf(request), params.id));
  route(app, 'revealWebhookSecret', 'integrations:manage', async ({ params, request }) => ({
    secret: await revealSecret(sql, settings, orgIdOf(request), params.id),
  }));
  route(app, 'testWebhook', 'integrations:manage', async ({ params, request }) => ({ webhookId: await sendTestEvent(sql, orgIdOf(request), params.id) }));
  route(app, 'removeWebhook', 'integrations:manage', async ({ params, request }) => {
    await removeEndpoint(sql, orgIdOf(request), params.id);
    return { ok: true as const };
  });
  route(app, 'webhookAttempts', 'read', async ({ params, request }) => {
    await findEndpoint(sql, orgIdOf(request), params.id);
    return { attempts: await listAttempts(sql, orgIdOf(request), params.id) };
  });
  route(app, 'replayWebhookMessage', 'integrations:manage', async ({ params, request }) => ({
    replayed: await replayMessages(sql, orgIdOf(request), { messageId: params.messageId }),
  }));
}
