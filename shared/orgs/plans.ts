// Invariant: the plan table of DECISIONS.md lives here and nowhere else. An organisation's
// effective limits are this table overlaid with its per-org overrides (ENTERPRISE has no table
// values of its own: it inherits BUSINESS numbers unless the operator overrides them).

export const PLANS = ['FREE', 'PRO', 'BUSINESS', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];

export type Feature = 'METADATA_PREVIEW' | 'ANALYTICS_EXPORT';

export interface PlanLimits {
  linksPerMonth: number;
  clicksPerMonth: number;
  seats: number;
  customDomains: number;
  crudPerMin: number;
  analyticsPerMin: number;
  exportPerMin: number;
}

export type LimitOverrides = Partial<Pick<PlanLimits, 'linksPerMonth' | 'clicksPerMonth' | 'crudPerMin' | 'analyticsPerMin' | 'exportPerMin'>>;

const TABLE: Record<Plan, PlanLimits> = {
  FREE: { linksPerMonth: 1_000, clicksPerMonth: 10_000, seats: 1, customDomains: 0, crudPerMin: 10, analyticsPerMin: 30, exportPerMin: 5 },
  PRO: { linksPerMonth: 10_000, clicksPerMonth: 100_000, seats: 5, customDomains: 3, crudPerMin: 30, analyticsPerMin: 60, exportPerMin: 10 },
  BUSINESS: { linksPerMonth: 100_000, clicksPerMonth: 1_000_000, seats: 25, customDomains: 10, crudPerMin: 300, analyticsPerMin: 300, exportPerMin: 30 },
  // "custom" in the spec: defaults are BUSINESS figures until the operator sets per-org limits.
  ENTERPRISE: { linksPerMonth: 100_000, clicksPerMonth: 1_000_000, seats: 25, customDomains: 10, crudPerMin: 300, analyticsPerMin: 300, exportPerMin: 30 },
};

const FEATURES: Record<Plan, readonly Feature[]> = {
  FREE: [],
  PRO: ['METADATA_PREVIEW'],
  BUSINESS: ['METADATA_PREVIEW', 'ANALYTICS_EXPORT'],
  ENTERPRISE: ['METADATA_PREVIEW', 'ANALYTICS_EXPORT'],
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function effectiveLimits(plan: Plan, overrides: LimitOverrides): PlanLimits {
  const base = TABLE[plan];
  const merged: PlanLimits = { ...base };
  for (const [key, value] of Object.entries(overrides) as [keyof LimitOverrides, number | undefined][]) {
    if (value !== undefined && value !== null) merged[key] = value;
  }
  return merged;
}

export function planHasFeature(plan: Plan, feature: Feature): boolean {
  return FEATURES[plan].includes(feature);
}

/** Only FREE is hard-stopped on links and clicks; paid plans accrue overage. */
export function isHardCapped(plan: Plan): boolean {
  return plan === 'FREE';
}

/** The cheapest plan above `plan` that has the feature, or null. */
export function suggestFeatureUpgrade(plan: Plan, feature: Feature): Plan | null {
  return PLANS.slice(PLANS.indexOf(plan) + 1).find((p) => FEATURES[p].includes(feature)) ?? null;
}

/** The cheapest plan above `plan` whose table value for `limit` is higher, or null. */
export function suggestLimitUpgrade(plan: Plan, limit: keyof PlanLimits): Plan | null {
  const current = TABLE[plan][limit];
  return PLANS.slice(PLANS.indexOf(plan) + 1).find((p) => TABLE[p][limit] > current) ?? (plan === 'ENTERPRISE' ? null : 'ENTERPRISE');
}

export const OVERAGE_EUR = {
  linksPer10k: 30,
  clicksPer10k: 2.5,
} as const;
