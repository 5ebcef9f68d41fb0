// Data access of the Webhooks page: the endpoint list, one endpoint's attempt log, and the
// actions, each refreshing what it changed.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../api.ts';

export function useWebhooks() {
  return useQuery({ queryKey: ['webhooks'], queryFn: () => call('webhooks') });
}

export function useWebhookAttempts(id: string, enabled: boolean) {
  return useQuery({ queryKey: ['webhooks', id, 'attempts'], queryFn: () => call('webhookAttempts', { params: { id } }), enabled });
}

export function useWebhookActions() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['webhooks'] });
  return {
    add: async (url: string, eventTypes: string[]) => {
      const r = await call('addWebhook', { body: { url, eventTypes } });
      await refresh();
      return r;
    },
    update: async (id: string, url: string, eventTypes: string[]) => {
      await call('updateWebhook', { params: { id }, body: { url, eventTypes } });
      await refresh();
    },
    /** Every message of the endpoint queued in [from, to) sent again; how many. */
    replayRange: async (id: string, from: string, to: string) => {
      const r = await call('replayWebhookRange', { params: { id }, body: { from, to } });
      await refresh();
      return r.replayed.length;
    },
    setEnabled: async (id: string, enabled: boolean) => {
      await call('webhookEnabled', { params: { id }, body: { enabled } });
      await refresh();
    },
    rotate: async (id: string) => {
      const r = await call('rotateWebhook', { params: { id } });
      await refresh();
      return r.secret;
    },
    reveal: async (id: string) => (await call('revealWebhookSecret', { params: { id } })).secret,
    test: async (id: string) => {
      const r = await call('testWebhook', { params: { id } });
      await refresh();
      return r.webhookId;
    },
    replay: async (messageId: string) => {
      await call('replayWebhookMessage', { params: { messageId } });
      await refresh();
    },
    remove: async (id: string) => {
      await call('removeWebhook', { params: { id } });
      await refresh();
    },
  };
}
