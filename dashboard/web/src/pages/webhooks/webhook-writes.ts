// Data access of the Webhooks page: the endpoint list, one endpoint's attempt log, and the writes,
// each a mutation (data/use-write.ts) that reads the list (and the logs under it) again.
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api.ts';
import { keys, queries } from '../../data/queries.ts';
import { type OutcomeState, useWrite, type WriteOptions } from '../../data/use-write.ts';

export function useWebhooks() {
  return useQuery(queries.webhooks());
}

export function useWebhookAttempts(id: string) {
  return useQuery(queries.webhookAttempts(id));
}

/** A write of the Webhooks page: it invalidates the list and every attempt log. */
export function useWebhookWrite<V, R>(options: WriteOptions<V, R>) {
  return useWrite({ invalidates: [keys.webhooks()], ...options });
}

export interface EndpointBody {
  url: string;
  eventTypes: string[];
}

export interface Shown {
  title: string;
  secret: string;
}

/** The one-click actions on an endpoint, all reporting to the endpoint card's status line; a secret revealed or rotated goes to `onSecret`. */
export function useEndpointActions(id: string, shared: OutcomeState, onSecret: (s: Shown) => void) {
  return {
    test: useWebhookWrite({
      run: () => call('testWebhook', { params: { id } }),
      said: (r) => `Test event ${r.webhookId} queued.`,
      shared,
    }),
    reveal: useWrite({
      run: () => call('revealWebhookSecret', { params: { id } }),
      onDone: (r) => onSecret({ title: 'Signing secret', secret: r.secret }),
      shared,
    }),
    rotate: useWebhookWrite({
      run: () => call('rotateWebhook', { params: { id } }),
      said: () => 'Secret rotated.',
      onDone: (r) => onSecret({ title: 'Your new signing secret (the previous one also signs for 24 hours)', secret: r.secret }),
      shared,
    }),
    setEnabled: useWebhookWrite({
      run: (enabled: boolean) => call('webhookEnabled', { params: { id }, body: { enabled } }),
      said: (_, enabled) => (enabled ? 'Enabled.' : 'Disabled.'),
      shared,
    }),
    remove: useWebhookWrite({ run: () => call('removeWebhook', { params: { id } }), shared }),
    replay: useWebhookWrite({
      run: (messageId: string) => call('replayWebhookMessage', { params: { messageId } }),
      said: (_, messageId) => `Message ${messageId} queued again.`,
      shared,
    }),
  };
}
