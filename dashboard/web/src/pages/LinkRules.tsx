// The link editor's rules part: expiry, click limit, password (never shown, only set or removed),
// the rule builder (ordered rules of conditions, errors next to the condition the server names),
// and the simulator, which asks the server's resolve what the redirector would do for a visitor.
import { useState } from 'react';
import type { BodyOf, ResponseOf } from '../../../contract/schemas.ts';
import { ApiError, call } from '../api.ts';
import { CheckField, SelectField } from '../ui/Choice.tsx';
import { Field } from '../ui/Field.tsx';

export const CONDITION_TYPES = [
  { value: 'device', label: 'Device' },
  { value: 'countryCode', label: 'Country' },
  { value: 'language', label: 'Language' },
  { value: 'queryParam', label: 'Query parameter' },
  { value: 'after', label: 'From (instant)' },
  { value: 'before', label: 'Until (instant)' },
] as const;
const DEVICES = ['IOS', 'ANDROID', 'MOBILE', 'TABLET', 'DESKTOP'];
const HINTS: Record<string, string> = {
  countryCode: 'Two letters, e.g. DE.',
  language: 'Primary tag of the preferred language, e.g. de.',
  queryParam: 'name or name=value, e.g. ref=mail.',
  after: 'ISO 8601 with zone, e.g. 2026-12-01T00:00:00Z (inclusive).',
  before: 'ISO 8601 with zone, e.g. 2027-01-01T00:00:00Z (exclusive).',
};

export interface ConditionForm {
  type: string;
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
type SaveBody = BodyOf<'saveLink'>;

/** An instant as the value of a datetime-local input (the browser's zone). */
function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as an instant; what does not read as one goes as typed (the server explains). */
function instantOf(local: string): string | null {
  if (local.trim() === '') return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

export const EMPTY_RULES: RulesForm = { expiresAt: '', maxClicks: '', expiredUrl: '', password: '', removePassword: false, rules: [] };

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

/** The save request's rule members of the form. A password left empty keeps the stored one. */
export function rulesBodyOf(f: RulesForm): Pick<SaveBody, 'expiresAt' | 'maxClicks' | 'expiredUrl' | 'password' | 'rules'> {
  const clicks = f.maxClicks.trim();
  return {
    expiresAt: instantOf(f.expiresAt),
    // Not a whole number: sent as typed, so the server's message lands next to the field.
    maxClicks: clicks === '' ? null : /^\d+$/.test(clicks) ? Number(clicks) : (clicks as unknown as number),
    expiredUrl: f.expiredUrl.trim() === '' ? null : f.expiredUrl,
    ...(f.removePassword ? { password: '' } : f.password !== '' ? { password: f.password } : {}),
    rules: f.rules.map((r) => ({ url: r.url, conditions: r.conditions.map((c) => ({ type: c.type as never, value: c.value })) })),
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

interface PartProps {
  form: RulesForm;
  onChange(f: RulesForm): void;
  errors: Record<string, string | undefined>;
  disabled: boolean;
}

export function AccessFields({ form, onChange, errors: e, disabled, hasPassword }: PartProps & { hasPassword: boolean }) {
  const set =
    <K extends keyof RulesForm>(key: K) =>
    (value: RulesForm[K]) =>
      onChange({ ...form, [key]: value });
  return (
    <fieldset disabled={disabled}>
      <legend>Expiry and password</legend>
      <Field
        label="Expires at"
        type="datetime-local"
        value={form.expiresAt}
        onChange={set('expiresAt')}
        error={e.expiresAt}
        hint="Your local time; empty: never."
      />
      <Field
        label="Maximum clicks"
        inputMode="numeric"
        value={form.maxClicks}
        onChange={set('maxClicks')}
        error={e.maxClicks}
        hint="Empty: no limit. Crawlers' previews do not count."
      />
      <Field
        label="After expiry, send visitors to"
        type="url"
        value={form.expiredUrl}
        onChange={set('expiredUrl')}
        error={e.expiredUrl}
        hint="Empty: they get 410 Link has expired."
      />
      <Field
        label={hasPassword ? 'New password' : 'Password'}
        type="password"
        autoComplete="new-password"
        value={form.password}
        onChange={set('password')}
        error={e.password}
        hint={hasPassword ? 'This link has a password. Leave empty to keep it.' : '8 to 128 characters; empty: no password.'}
      />
      {hasPassword ? <CheckField label="Remove the password" checked={form.removePassword} onChange={set('removePassword')} /> : null}
    </fieldset>
  );
}

export function RuleBuilder({ form, onChange, errors: e, disabled }: PartProps) {
  const setRules = (rules: RuleForm[]) => onChange({ ...form, rules });
  const setRule = (i: number, patch: Partial<RuleForm>) => setRules(form.rules.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  const setCondition = (i: number, j: number, patch: Partial<ConditionForm>) =>
    setRule(i, { conditions: (form.rules[i]?.conditions ?? []).map((c, k) => (k === j ? { ...c, ...patch } : c)) });
  const move = (i: number, by: number) => {
    const next = [...form.rules];
    const [r] = next.splice(i, 1);
    if (r) next.splice(i + by, 0, r);
    setRules(next);
  };
  return (
    <fieldset disabled={disabled}>
      <legend>Rules</legend>
      <p>The first rule whose conditions all hold sends the visitor to its URL; deep links apply only when none holds.</p>
      {e.rules ? (
        <p className="error" role="alert">
          {e.rules}
        </p>
      ) : null}
      {form.rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a rule's position is its identity (the API's errors name it)
        <fieldset key={i} className="deep-link">
          <legend>Rule {i + 1}</legend>
          {e[`rules[${i}].conditions`] ? (
            <p className="error" role="alert">
              {e[`rules[${i}].conditions`]}
            </p>
          ) : null}
          {r.conditions.map((c, j) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: as above
            <div key={j} className="condition">
              <SelectField
                label={`Rule ${i + 1}, condition ${j + 1}`}
                value={c.type}
                onChange={(type) => setCondition(i, j, { type, value: type === 'device' ? 'IOS' : '' })}
                error={e[`rules[${i}].conditions[${j}].type`]}
                options={CONDITION_TYPES.map((t) => ({ value: t.value, label: t.label }))}
              />
              {c.type === 'device' ? (
                <SelectField
                  label={`Rule ${i + 1}, condition ${j + 1}: device`}
                  value={c.value}
                  onChange={(value) => setCondition(i, j, { value })}
                  error={e[`rules[${i}].conditions[${j}].value`]}
                  options={DEVICES.map((d) => ({ value: d, label: d }))}
                />
              ) : (
                <Field
                  label={`Rule ${i + 1}, condition ${j + 1}: value`}
                  value={c.value}
                  onChange={(value) => setCondition(i, j, { value })}
                  error={e[`rules[${i}].conditions[${j}].value`]}
                  hint={HINTS[c.type]}
                />
              )}
              <button type="button" className="secondary" onClick={() => setRule(i, { conditions: r.conditions.filter((_, k) => k !== j) })}>
                Remove condition {j + 1} of rule {i + 1}
              </button>
            </div>
          ))}
          <button type="button" className="secondary" onClick={() => setRule(i, { conditions: [...r.conditions, { type: 'device', value: 'IOS' }] })}>
            Add a condition to rule {i + 1}
          </button>
          <Field label={`Rule ${i + 1}: send to URL`} type="url" value={r.url} onChange={(url) => setRule(i, { url })} error={e[`rules[${i}].url`]} />
          <p>
            <button type="button" className="secondary" disabled={i === 0} onClick={() => move(i, -1)}>
              Move rule {i + 1} up
            </button>{' '}
            <button type="button" className="secondary" disabled={i === form.rules.length - 1} onClick={() => move(i, 1)}>
              Move rule {i + 1} down
            </button>{' '}
            <button type="button" className="secondary" onClick={() => setRules(form.rules.filter((_, k) => k !== i))}>
              Remove rule {i + 1}
            </button>
          </p>
        </fieldset>
      ))}
      <button
        type="button"
        className="secondary"
        disabled={form.rules.length >= 20}
        onClick={() => setRules([...form.rules, { conditions: [{ type: 'device', value: 'IOS' }], url: '' }])}
      >
        Add a rule
      </button>
    </fieldset>
  );
}

const VISITORS = [
  {
    value: 'desktop',
    label: 'Desktop browser',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  },
  {
    value: 'iphone',
    label: 'iPhone',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    value: 'ipad',
    label: 'iPad',
    ua: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    value: 'android',
    label: 'Android phone',
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  },
  {
    value: 'android-tablet',
    label: 'Android tablet',
    ua: 'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  },
  { value: 'crawler', label: 'Link-preview crawler', ua: 'facebookexternalhit/1.1' },
];

const KIND_TEXT: Record<string, string> = {
  redirect: 'Redirect to the destination',
  rule: 'Redirect by a rule',
  cloak: 'Shown framed (cloaking)',
  deep_link: 'Opens the app (deep link)',
  preview: 'Preview page for a crawler',
  password_required: 'Asked for the password',
  expired: 'Expired',
  archived: 'Archived (410)',
  suspended: 'Organisation suspended (403)',
  quota_exhausted: 'Click quota exhausted (402)',
  not_found: 'Not found (404)',
};

type Resolved = ResponseOf<'resolveLink'>;

/** The simulator's data access: one resolve call at a time, its answer or its errors. */
function useSimulation(shortCode: string) {
  const [result, setResult] = useState<Resolved | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const run = async (visitor: NonNullable<BodyOf<'resolveLink'>['visitor']>) => {
    setBusy(true);
    setErrors({});
    try {
      setResult(await call('resolveLink', { body: { shortCode, visitor } }));
    } catch (err) {
      setResult(null);
      setErrors(err instanceof ApiError ? err.byField() : { '': 'The dashboard could not reach the server; try again.' });
    } finally {
      setBusy(false);
    }
  };
  return { result, errors, busy, run };
}

export function Simulator({ shortCode }: { shortCode: string }) {
  const [visitor, setVisitor] = useState({ device: 'desktop', countryCode: '', acceptLanguage: '', query: '', at: '' });
  const sim = useSimulation(shortCode);
  const set = (key: keyof typeof visitor) => (value: string) => setVisitor((v) => ({ ...v, [key]: value }));
  const simulate = () =>
    sim.run({
      userAgent: VISITORS.find((v) => v.value === visitor.device)?.ua ?? '',
      countryCode: visitor.countryCode.trim() === '' ? null : visitor.countryCode.trim(),
      acceptLanguage: visitor.acceptLanguage,
      query: visitor.query.replace(/^\?/, ''),
      at: instantOf(visitor.at),
    });
  const r = sim.result;
  return (
    <section aria-labelledby="sim-h" className="qr-box">
      <h2 id="sim-h">Simulate a visit</h2>
      <p>What the redirector does with the saved link for this visitor. Nothing is recorded.</p>
      <SelectField
        label="Visitor's device"
        value={visitor.device}
        onChange={set('device')}
        options={VISITORS.map((v) => ({ value: v.value, label: v.label }))}
      />
      <Field
        label="Visitor's country"
        value={visitor.countryCode}
        onChange={set('countryCode')}
        error={sim.errors['visitor.countryCode']}
        hint="Two letters, e.g. DE."
      />
      <Field
        label="Accept-Language"
        value={visitor.acceptLanguage}
        onChange={set('acceptLanguage')}
        error={sim.errors['visitor.acceptLanguage']}
        hint="e.g. de-DE,en;q=0.8"
      />
      <Field label="Query string" value={visitor.query} onChange={set('query')} error={sim.errors['visitor.query']} hint="e.g. ref=mail" />
      <Field label="Visit time" type="datetime-local" value={visitor.at} onChange={set('at')} error={sim.errors['visitor.at']} hint="Empty: now." />
      {sim.errors[''] ? (
        <p className="error" role="alert">
          {sim.errors['']}
        </p>
      ) : null}
      <button type="button" onClick={simulate} disabled={sim.busy}>
        Simulate
      </button>
      <p role="status" aria-live="polite">
        {r === null
          ? ''
          : `${KIND_TEXT[r.kind] ?? r.kind}${r.matchedRule === undefined ? '' : ` (rule ${r.matchedRule + 1})`}${r.location === undefined ? '' : `: ${r.location}`}`}
      </p>
    </section>
  );
}
