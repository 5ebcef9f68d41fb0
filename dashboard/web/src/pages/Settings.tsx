// Organisation settings: name, reporting time zone, and whether every member needs 2FA (owners
// change them; everyone else sees them).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, sessionQuery, useSession } from '../session.ts';
import { CheckField } from '../ui/Choice.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const settingsRoute = createRoute({ getParentRoute: () => appRoute, path: '/settings', component: SettingsPage });

function SettingsPage() {
  const org = useQuery({ queryKey: ['org'], queryFn: () => call('org') });
  return (
    <>
      <h1>Organisation settings</h1>
      {org.data ? <SettingsForm org={org.data} /> : <p role="status">Loading…</p>}
    </>
  );
}

function SettingsForm({ org }: { org: ResponseOf<'org'> }) {
  const view = useSession();
  const canEdit = may(view, 'org:settings');
  const client = useQueryClient();
  const [name, setName] = useState(org.name);
  const [timezone, setTimezone] = useState(org.timezone);
  const [require2fa, setRequire2fa] = useState(org.require2fa);
  const [saved, setSaved] = useState('');
  const form = useFormErrors();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    setSaved('');
    try {
      const r = await call('updateOrg', { body: { name, timezone, require2fa } });
      client.setQueryData(['org'], r);
      await client.invalidateQueries({ queryKey: sessionQuery.queryKey });
      setSaved('Settings saved.');
    } catch (err) {
      form.show(err, ['name', 'timezone', 'require2fa']);
    }
  };
  return (
    <form onSubmit={save} noValidate>
      <FormError message={form.errors['']} />
      <p>Plan: {org.plan}</p>
      <fieldset disabled={!canEdit}>
        <legend>Organisation</legend>
        <Field label="Name" value={name} onChange={setName} error={form.errors.name} />
        <Field
          label="Time zone"
          value={timezone}
          onChange={setTimezone}
          error={form.errors.timezone}
          hint="An IANA zone such as Europe/Berlin; analytics days follow it."
        />
        <CheckField label="Require two-factor authentication for every member" checked={require2fa} onChange={setRequire2fa} error={form.errors.require2fa} />
      </fieldset>
      {canEdit ? <button type="submit">Save settings</button> : <p>Only owners change these settings.</p>}
      <p role="status">{saved}</p>
    </form>
  );
}
