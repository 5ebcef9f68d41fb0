// Invariant: the analytics page reads its data only through this hook: one dashboard call per
// range and filter set (series, previous period, top lists), kept while the next one loads.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '../api.ts';

export type AnalyticsQuery = Record<string, string | undefined>;

export function useAnalytics(query: AnalyticsQuery) {
  return useQuery({
    queryKey: ['analytics', query],
    queryFn: () => call('analytics', { query }),
    placeholderData: keepPreviousData,
    retry: false,
  });
}
