// Invariant: every query key of the SPA comes from `keys`, and every read's options from `queries`
// (key and call together), so a write invalidates exactly what a read cached: a list's prefix
// (keys.links()) covers each of its pages.
import { queryOptions } from '@tanstack/react-query';
import { call } from '../api.ts';

export type AnalyticsQuery = Record<string, string | undefined>;

export const keys = {
  session: () => ['session'] as const,
  links: () => ['links'] as const,
  linkPage: (q: string, page: number, size: number) => ['links', q, page, size] as const,
  link: (code: string | null) => ['link', code] as const,
  analytics: (query: AnalyticsQuery) => ['analytics', query] as const,
  keys: () => ['keys'] as const,
  apps: () => ['apps'] as const,
  domains: () => ['domains'] as const,
  webhooks: () => ['webhooks'] as const,
  webhookAttempts: (id: string) => ['webhooks', id, 'attempts'] as const,
  members: () => ['members'] as const,
  usage: () => ['usage'] as const,
  org: () => ['org'] as const,
  accountSessions: () => ['account-sessions'] as const,
  invite: (token: string) => ['invite', token] as const,
};

export const queries = {
  linkPage: (q: string | undefined, page: number, size: number) =>
    queryOptions({ queryKey: keys.linkPage(q ?? '', page, size), queryFn: () => call('links', { query: { query: q, page, size } }) }),
  link: (code: string) => queryOptions({ queryKey: keys.link(code), queryFn: () => call('link', { params: { code } }) }),
  analytics: (query: AnalyticsQuery) => queryOptions({ queryKey: keys.analytics(query), queryFn: () => call('analytics', { query }) }),
  keys: () => queryOptions({ queryKey: keys.keys(), queryFn: () => call('keys') }),
  apps: () => queryOptions({ queryKey: keys.apps(), queryFn: () => call('apps') }),
  domains: () => queryOptions({ queryKey: keys.domains(), queryFn: () => call('domains') }),
  webhooks: () => queryOptions({ queryKey: keys.webhooks(), queryFn: () => call('webhooks') }),
  webhookAttempts: (id: string) => queryOptions({ queryKey: keys.webhookAttempts(id), queryFn: () => call('webhookAttempts', { params: { id } }) }),
  members: () => queryOptions({ queryKey: keys.members(), queryFn: () => call('members') }),
  usage: () => queryOptions({ queryKey: keys.usage(), queryFn: () => call('usage') }),
  org: () => queryOptions({ queryKey: keys.org(), queryFn: () => call('org') }),
  accountSessions: () => queryOptions({ queryKey: keys.accountSessions(), queryFn: () => call('accountSessions') }),
  invite: (token: string) => queryOptions({ queryKey: keys.invite(token), queryFn: () => call('inviteLookup', { body: { token } }) }),
};
