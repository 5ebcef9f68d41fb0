// Invariant: the one statement of a link rule's vocabulary and limits: the condition types (with
// the dashboard's label and hint of each), the device classes a device condition names, and how
// many rules and conditions a link holds. The request schema (link-rules.ts) and the dashboard's
// rule editor derive from it. Browser-safe: no imports.

/** Condition types in the editor's order, with its label and (where the value needs one) hint. */
export const RULE_CONDITIONS = {
  device: { label: 'Device', hint: null },
  countryCode: { label: 'Country', hint: 'Two letters, e.g. DE.' },
  language: { label: 'Language', hint: 'Primary tag of the preferred language, e.g. de.' },
  queryParam: { label: 'Query parameter', hint: 'name or name=value, e.g. ref=mail.' },
  after: { label: 'From (instant)', hint: 'ISO 8601 with zone, e.g. 2026-12-01T00:00:00Z (inclusive).' },
  before: { label: 'Until (instant)', hint: 'ISO 8601 with zone, e.g. 2027-01-01T00:00:00Z (exclusive).' },
} as const satisfies Record<string, { label: string; hint: string | null }>;
export type RuleConditionType = keyof typeof RULE_CONDITIONS;
export const RULE_CONDITION_TYPES = Object.keys(RULE_CONDITIONS) as [RuleConditionType, ...RuleConditionType[]];

export const DEVICE_CLASSES = ['IOS', 'ANDROID', 'MOBILE', 'TABLET', 'DESKTOP'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

export const MAX_RULES = 20;
export const MAX_RULE_CONDITIONS = 10;
