// Invariant: the analytics page reads its data only through this hook: one dashboard call per
// range and filter set (series, previous period, top lists), kept while the next one loads.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type AnalyticsQuery, queries } from '../data/queries.ts';

export type { AnalyticsQuery };

export function useAnalytics(query: AnalyticsQuery) {
  return useQuery({ ...queries.analytics(query), placeholderData: keepPreviousData, retry: false });
}
