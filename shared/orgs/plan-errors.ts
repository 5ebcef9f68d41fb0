// Invariant: the errors that name a plan (FE001, QE001, QE002) live beside the plan table, so
// shared/errors stays below every capability; codes and texts are as the spec fixes them.
import { AppError } from '../errors/app-error.ts';
import type { Plan } from './plans.ts';

export const featureNotAvailable = (feature: string, currentPlan: Plan, suggestedUpgradeTo: Plan | null): AppError =>
  new AppError('FE001', `Feature ${feature} is not available on the ${currentPlan} plan`, {
    kind: 'feature_not_available',
    feature,
    currentPlan,
    suggestedUpgradeTo,
  });

export type HardQuota = 'LINKS_PER_MONTH' | 'CUSTOM_DOMAINS' | 'SEATS';

export const quotaExceeded = (quota: HardQuota, current: number, limit: number, currentPlan: Plan, suggestedUpgradeTo: Plan | null): AppError =>
  new AppError('QE001', `Plan quota ${quota} exceeded (${current}/${limit})`, {
    kind: 'quota_exceeded',
    quota,
    current,
    limit,
    currentPlan,
    suggestedUpgradeTo,
  });

export const clickQuotaExhausted = (args: {
  shortCode: string;
  currentClicks: number;
  clicksLimit: number;
  periodEnd: number;
  currentPlan: Plan;
  suggestedUpgradeTo: Plan | null;
}): AppError => new AppError('QE002', 'Click quota exhausted', { kind: 'click_quota_exhausted', ...args });
