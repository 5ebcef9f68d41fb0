// Organisation settings: name, reporting time zone, and whether every member needs 2FA (owners
// change them; everyone else sees them).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useWrite } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { CheckField } from '../ui/Choice.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const settingsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/settings',
  staticData: { nav: { label: 'Settings' } },
  component: SettingsPage,
});

function SettingsPage() {
  const org = useQuery(queries.org());
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
  const form = useFormErrors();
  const save = useWrite({
    run: () => call('updateOrg', { body: { name, timezone, require2fa } }),
    invalidates: [keys.session()],
    said: () => 'Settings saved.',
    onDone: (r) => {
      client.setQueryData(keys.org(), r);
    },
    onFail: (err) => form.show(err, ['name', 'timezone', 'require2fa']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
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
      {canEdit ? <Button type="submit">Save settings</Button> : <p>Only owners change these settings.</p>}
      <Feedback outcome={save.outcome} />
    </form>
  );
}
