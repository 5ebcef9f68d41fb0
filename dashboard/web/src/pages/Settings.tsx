// Organisation settings: name, reporting time zone, whether every member needs 2FA, and what the
// organisation records of its visitors and for how long (owners change them; everyone else sees
// them).
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
import { CheckField, SelectField } from '../ui/Choice.tsx';
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
      {org.data ? (
        <>
          <SettingsForm org={org.data} />
          <PrivacyForm org={org.data} />
        </>
      ) : (
        <p role="status">Loading…</p>
      )}
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

const GEO_OPTIONS = [
  { value: 'city', label: 'City and region' },
  { value: 'country', label: 'Country only' },
  { value: 'none', label: 'Nothing' },
] as const;

const kept = (days: number | null): string => (days === null ? 'kept for good' : `${days} days`);

function PrivacyForm({ org }: { org: ResponseOf<'org'> }) {
  const view = useSession();
  const canEdit = may(view, 'org:settings');
  const client = useQueryClient();
  const [tracking, setTracking] = useState(org.tracking);
  const [retention, setRetention] = useState(org.retentionDays === null ? '' : String(org.retentionDays));
  const form = useFormErrors();
  const save = useWrite({
    run: () => call('updatePrivacy', { body: { tracking, retentionDays: retention } }),
    said: () => 'Privacy settings saved. Clicks follow within seconds.',
    onDone: (r) => {
      client.setQueryData(keys.org(), r);
    },
    onFail: (err) => form.show(err, ['retentionDays']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="privacy-heading">
      <h2 id="privacy-heading">Privacy and retention</h2>
      <FormError message={form.errors['']} />
      <fieldset disabled={!canEdit}>
        <legend>What each click records about the visitor</legend>
        <p className="hint">Every visit is still counted. The visitor's IP address is never stored.</p>
        <CheckField
          label="Record the referrer"
          checked={tracking.referrer}
          onChange={(referrer) => setTracking({ ...tracking, referrer })}
          hint="The page the visitor came from, and its domain."
        />
        <CheckField
          label="Record browser, operating system and device"
          checked={tracking.userAgent}
          onChange={(userAgent) => setTracking({ ...tracking, userAgent })}
          hint="Read from the User-Agent. Bots are told apart either way."
        />
        <SelectField
          label="Location recorded"
          value={tracking.geo}
          onChange={(geo) => setTracking({ ...tracking, geo: geo as typeof tracking.geo })}
          options={GEO_OPTIONS}
        />
        <CheckField
          label="Honour Do Not Track and Global Privacy Control"
          checked={tracking.dnt}
          onChange={(dnt) => setTracking({ ...tracking, dnt })}
          hint="A visit that sends DNT: 1 or Sec-GPC: 1 is counted with nothing recorded about the visitor."
        />
      </fieldset>
      <fieldset disabled={!canEdit}>
        <legend>How long raw events are kept</legend>
        <Field
          label="Keep raw events for (days)"
          value={retention}
          onChange={setRetention}
          error={form.errors.retentionDays}
          inputMode="numeric"
          hint={`Empty follows the service's setting: ${kept(org.serviceRetentionDays)}. Older events leave browse, sync and export within a day; aggregates keep counting them.`}
        />
      </fieldset>
      {canEdit ? <Button type="submit">Save privacy settings</Button> : <p>Only owners change these settings.</p>}
      <Feedback outcome={save.outcome} />
    </form>
  );
}
