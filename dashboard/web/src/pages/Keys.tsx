// API keys: create (label, scopes), the value shown once in a dialog with a copy button (never
// kept after it closes), list with who created each key, its last use and status, revoke after a
// confirmation.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { CheckField } from '../ui/Choice.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const keysRoute = createRoute({ getParentRoute: () => appRoute, path: '/keys', component: KeysPage });

const SCOPES = ['links:read', 'links:write', 'analytics:read', 'analytics:export'] as const;
type Scope = (typeof SCOPES)[number];

const minute = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');

function KeysPage() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => call('keys') });
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(SCOPES));
  const [created, setCreated] = useState<{ key: string; label: string } | null>(null);
  const [copied, setCopied] = useState('');
  const [revoking, setRevoking] = useState<{ id: string; label: string } | null>(null);
  const form = useFormErrors();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      const r = await call('createKey', { body: { label, scopes: [...scopes] } });
      setCreated({ key: r.key, label: r.view.label });
      setCopied('');
      setLabel('');
      await client.invalidateQueries({ queryKey: ['keys'] });
    } catch (err) {
      form.show(err, ['label', 'scopes']);
    }
  };
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the key and copy it.');
    }
  };
  const revoke = async () => {
    if (!revoking) return;
    await call('revokeKey', { params: { id: revoking.id } });
    setRevoking(null);
    await client.invalidateQueries({ queryKey: ['keys'] });
  };

  return (
    <>
      <h1>API keys</h1>
      <p>Keys let programs use the link API. A key is shown once, when it is made; the server keeps only its hash.</p>
      <form onSubmit={create} noValidate aria-labelledby="new-key-h">
        <h2 id="new-key-h">New key</h2>
        <FormError message={form.errors['']} />
        <Field
          label="Label"
          value={label}
          onChange={setLabel}
          error={form.errors.label}
          hint="3 to 100 letters, digits, spaces and . , _ - ( ); unique in the organisation."
        />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <CheckField
              key={s}
              label={s}
              checked={scopes.has(s)}
              onChange={(on) =>
                setScopes((prev) => {
                  const next = new Set(prev);
                  if (on) next.add(s);
                  else next.delete(s);
                  return next;
                })
              }
            />
          ))}
          {form.errors.scopes ? (
            <p className="error" role="alert">
              {form.errors.scopes}
            </p>
          ) : null}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
      <table>
        <caption>Keys of the organisation</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(keys.data?.keys ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.label}</td>
              <td>{k.scopes.join(', ')}</td>
              <td>
                {minute(k.createdAt)}
                {k.createdBy ? ` by ${k.createdBy}` : ''}
              </td>
              <td>{minute(k.lastUsedAt)}</td>
              <td>{k.status === 'active' ? 'Active' : 'Revoked'}</td>
              <td>
                {k.status === 'active' ? (
                  <button type="button" className="secondary" onClick={() => setRevoking({ id: k.id, label: k.label })}>
                    Revoke {k.label}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Dialog open={created !== null} title="Your new API key" onClose={() => setCreated(null)}>
        <p>
          This is the only time the key <strong>{created?.label}</strong> is shown. Copy it now and keep it somewhere safe.
        </p>
        <Field label="API key" value={created?.key ?? ''} onChange={() => undefined} readOnly className="secret" />
        <p role="status">{copied}</p>
        <div className="actions">
          <button type="button" onClick={() => void copy()}>
            Copy key
          </button>
          <button type="button" className="secondary" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      </Dialog>
      <Dialog open={revoking !== null} title={`Revoke ${revoking?.label ?? ''}?`} onClose={() => setRevoking(null)}>
        <p>Programs using this key are refused within a second. A revoked key cannot be restored, and its label stays taken.</p>
        <div className="actions">
          <button type="button" onClick={() => void revoke()}>
            Revoke key
          </button>
          <button type="button" className="secondary" onClick={() => setRevoking(null)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </>
  );
}
