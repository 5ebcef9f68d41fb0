// The link editor's expiry and password: expiry in the browser's local time, a click limit, where
// expired visits go, and a password that is only ever set or removed (never shown).
import { CheckField } from '../../ui/Choice.tsx';
import { Field } from '../../ui/Field.tsx';
import type { RulesForm } from './rules-form.ts';

export interface RulesPartProps {
  form: RulesForm;
  onChange(f: RulesForm): void;
  errors: Record<string, string | undefined>;
  disabled: boolean;
}

export function AccessSection({ form, onChange, errors: e, disabled, hasPassword }: RulesPartProps & { hasPassword: boolean }) {
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
