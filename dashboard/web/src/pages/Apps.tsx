// Mobile apps: register (name, platform, https store URL), change the store URL (applies at the
// next click), remove (links keep resolving). Everyone sees them; owners and admins change them.
import { useQuery } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useOutcome, useWrite } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { SelectField } from '../ui/Choice.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { Table } from '../ui/Table.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const appsRoute = createRoute({ getParentRoute: () => appRoute, path: '/apps', staticData: { nav: { label: 'Mobile apps' } }, component: AppsPage });

type Platform = 'IOS' | 'ANDROID' | 'WEB';
type AppView = ResponseOf<'apps'>['apps'][number];

function AppsPage() {
  const view = useSession();
  const canManage = may(view, 'integrations:manage');
  const apps = useQuery(queries.apps());
  const [name, setName] = useState('');
  const [platform, setPlatform] = useState<Platform>('IOS');
  const [storeUrl, setStoreUrl] = useState('');
  const form = useFormErrors();
  const register = useWrite({
    run: () => call('registerApp', { body: { name, platform, storeUrl } }),
    invalidates: [keys.apps()],
    said: (a) => `${a.name} registered: its mobileAppId is ${a.mobileAppId}.`,
    onDone: () => {
      setName('');
      setStoreUrl('');
    },
    onFail: (err) => form.show(err, ['name', 'platform', 'storeUrl']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    register.mutate();
  };
  const active = (apps.data?.apps ?? []).filter((a) => a.active);
  return (
    <>
      <h1>Mobile apps</h1>
      <p>Apps that links can open through deep links. A removed app is no longer offered; links that name it keep resolving.</p>
      {canManage ? (
        <form onSubmit={submit} noValidate aria-labelledby="new-app-h">
          <h2 id="new-app-h">Register an app</h2>
          <FormError message={form.errors['']} />
          <Field label="App name" value={name} onChange={setName} error={form.errors.name} />
          <SelectField
            label="Platform"
            value={platform}
            onChange={(v) => setPlatform(v as Platform)}
            error={form.errors.platform}
            options={[
              { value: 'IOS', label: 'iOS' },
              { value: 'ANDROID', label: 'Android' },
              { value: 'WEB', label: 'Web (every other device)' },
            ]}
          />
          <Field
            label="Store URL"
            type="url"
            value={storeUrl}
            onChange={setStoreUrl}
            error={form.errors.storeUrl}
            hint="An https address, e.g. https://apps.apple.com/app/id123."
          />
          <Button type="submit">Register app</Button>
          <Feedback outcome={register.outcome} />
        </form>
      ) : null}
      <Table<AppView>
        caption="Registered apps"
        rows={active}
        rowKey={(a) => a.mobileAppId}
        columns={[
          { heading: 'Name', cell: (a) => a.name },
          { heading: 'Platform', cell: (a) => a.platform },
          { heading: 'mobileAppId', cell: (a) => <code>{a.mobileAppId}</code> },
          { heading: 'Store URL', cell: (a) => (canManage ? <StoreUrlForm app={a} /> : a.storeUrl) },
        ]}
      />
    </>
  );
}

/** An app's store URL, changed in place, and its removal. */
function StoreUrlForm({ app }: { app: AppView }) {
  const [url, setUrl] = useState(app.storeUrl);
  const form = useFormErrors();
  const outcome = useOutcome();
  const save = useWrite({
    run: () => call('updateApp', { params: { id: app.mobileAppId }, body: { storeUrl: url } }),
    invalidates: [keys.apps()],
    said: () => 'Saved; it applies at the next click.',
    onFail: (err) => form.show(err, ['storeUrl']),
    shared: outcome,
  });
  const remove = useWrite({ run: () => call('removeApp', { params: { id: app.mobileAppId } }), invalidates: [keys.apps()], shared: outcome });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate className="inline">
      <Field label={`Store URL of ${app.name}`} type="url" value={url} onChange={setUrl} error={form.errors.storeUrl ?? form.errors['']} />
      <Button type="submit">Save store URL</Button>
      <Button variant="secondary" onClick={() => remove.mutate()}>
        Remove {app.name}
      </Button>
      <Feedback outcome={outcome.outcome} inline />
    </form>
  );
}
