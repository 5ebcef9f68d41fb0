// Invariant: the rules part of the link form as the editor holds it (text as typed) and as the
// save request takes it. A password is never read back, only set or removed; a click limit that
// is not a whole number is refused here, next to its field, and never sent.
import type { BodyOf, ResponseOf } from '../../../../contract/schemas.ts';
import type { RuleConditionType } from '../../../../../shared/links/model/link-rules-model.ts';

export interface ConditionForm {
  type: RuleConditionType;
  value: string;
}
export interface RuleForm {
  conditions: ConditionForm[];
  url: string;
}
export interface RulesForm {
  expiresAt: string;
  maxClicks: string;
  expiredUrl: string;
  password: string;
  removePassword: boolean;
  rules: RuleForm[];
}

type LinkView = ResponseOf<'link'>;
type RulesBody = Pick<BodyOf<'saveLink'>, 'expiresAt' | 'maxClicks' | 'expiredUrl' | 'password' | 'rules'>;

/** An instant as the value of a datetime-local input (the browser's zone). */
export function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as an instant; what does not read as one goes as typed (the server explains). */
export function instantOf(local: string): string | null {
  if (local.trim() === '') return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

export const EMPTY_RULES: RulesForm = { expiresAt: '', maxClicks: '', expiredUrl: '', password: '', removePassword: false, rules: [] };

export const NEW_CONDITION: ConditionForm = { type: 'device', value: 'IOS' };

export function rulesFormOf(l: LinkView): RulesForm {
  return {
    expiresAt: localInput(l.expiresAt),
    maxClicks: l.maxClicks === undefined ? '' : String(l.maxClicks),
    expiredUrl: l.expiredUrl ?? '',
    password: '',
    removePassword: false,
    rules: (l.rules ?? []).map((r) => ({ url: r.url, conditions: r.conditions.map((c) => ({ type: c.type, value: c.value })) })),
  };
}

/** What the form itself refuses before any request, by field. */
export function rulesProblems(f: RulesForm): Record<string, string> {
  const clicks = f.maxClicks.trim();
  return clicks === '' || /^\d+$/.test(clicks) ? {} : { maxClicks: 'a whole number of clicks, or empty for no limit' };
}

/** The save request's rule members of the form (rulesProblems empty). A password left empty keeps the stored one. */
export function rulesBodyOf(f: RulesForm): RulesBody {
  const clicks = f.maxClicks.trim();
  return {
    expiresAt: instantOf(f.expiresAt),
    maxClicks: clicks === '' ? null : Number(clicks),
    expiredUrl: f.expiredUrl.trim() === '' ? null : f.expiredUrl,
    ...(f.removePassword ? { password: '' } : f.password !== '' ? { password: f.password } : {}),
    rules: f.rules.map((r) => ({ url: r.url, conditions: r.conditions.map((c) => ({ type: c.type, value: c.value })) })),
  };
}

/** The field names the server's errors may name in this part of the form. */
export function rulesFieldNames(f: RulesForm): string[] {
  return [
    'expiresAt',
    'maxClicks',
    'expiredUrl',
    'password',
    'rules',
    ...f.rules.flatMap((r, i) => [
      `rules[${i}]`,
      `rules[${i}].url`,
      `rules[${i}].conditions`,
      ...r.conditions.flatMap((_, j) => [`rules[${i}].conditions[${j}]`, `rules[${i}].conditions[${j}].type`, `rules[${i}].conditions[${j}].value`]),
    ]),
  ];
}
