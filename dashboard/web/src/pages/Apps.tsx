// Mobile apps: register (name, platform, https store URL), change the store URL (applies at the
// next click), remove (links keep resolving). Everyone sees them; owners and admins change them.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { SelectField } from '../ui/Choice.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const appsRoute = createRoute({ getParentRoute: () => appRoute, path: '/apps', component: AppsPage });

type Platform = 'IOS' | 'ANDROID' | 'WEB';

function AppsPage() {
  const view = useSession();
  const canManage = may(view, 'integrations:manage');
  const client = useQueryClient();
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => call('apps') });
  const [name, setName] = useState('');
  const [platform, setPlatform] = useState<Platform>('IOS');
  const [storeUrl, setStoreUrl] = useState('');
  const [done, setDone] = useState('');
  const form = useFormErrors();
  const register = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    setDone('');
    try {
      const a = await call('registerApp', { body: { name, platform, storeUrl } });
      setDone(`${a.name} registered: its mobileAppId is ${a.mobileAppId}.`);
      setName('');
      setStoreUrl('');
      await client.invalidateQueries({ queryKey: ['apps'] });
    } catch (err) {
      form.show(err, ['name', 'platform', 'storeUrl']);
    }
  };
  const active = (apps.data?.apps ?? []).filter((a) => a.active);
  return (
    <>
      <h1>Mobile apps</h1>
      <p>Apps that links can open through deep links. A removed app is no longer offered; links that name it keep resolving.</p>
      {canManage ? (
        <form onSubmit={register} noValidate aria-labelledby="new-app-h">
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
          <button type="submit">Register app</button>
          <p role="status">{done}</p>
        </form>
      ) : null}
      <table>
        <caption>Registered apps</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Platform</th>
            <th scope="col">mobileAppId</th>
            <th scope="col">Store URL</th>
          </tr>
        </thead>
        <tbody>
          {active.map((a) => (
            <AppRow key={a.mobileAppId} app={a} canManage={canManage} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function AppRow({ app, canManage }: { app: { mobileAppId: string; name: string; platform: string; storeUrl: string }; canManage: boolean }) {
  const client = useQueryClient();
  const [url, setUrl] = useState(app.storeUrl);
  const [status, setStatus] = useState('');
  const form = useFormErrors();
  const save = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      await call('updateApp', { params: { id: app.mobileAppId }, body: { storeUrl: url } });
      setStatus('Saved; it applies at the next click.');
      await client.invalidateQueries({ queryKey: ['apps'] });
    } catch (err) {
      form.show(err, ['storeUrl']);
    }
  };
  const remove = async () => {
    await call('removeApp', { params: { id: app.mobileAppId } });
    await client.invalidateQueries({ queryKey: ['apps'] });
  };
  return (
    <tr>
      <td>{app.name}</td>
      <td>{app.platform}</td>
      <td>
        <code>{app.mobileAppId}</code>
      </td>
      <td>
        {canManage ? (
          <form onSubmit={save} noValidate className="inline">
            <Field label={`Store URL of ${app.name}`} type="url" value={url} onChange={setUrl} error={form.errors.storeUrl ?? form.errors['']} />
            <button type="submit">Save store URL</button>
            <button type="button" className="secondary" onClick={() => void remove()}>
              Remove {app.name}
            </button>
            <span role="status">{status}</span>
          </form>
        ) : (
          app.storeUrl
        )}
      </td>
    </tr>
  );
}
