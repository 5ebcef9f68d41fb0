// API keys: create (label, scopes), the value shown once in a dialog with a copy button (never
// kept after it closes), list with who created each key, its last use and status, revoke after a
// confirmation.
import { useQuery } from '@tanstack/react-query';
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useWrite } from '../data/use-write.ts';
import { DEFAULT_SCOPES, SCOPE_TEXT, SCOPES, type Scope } from '../../../../shared/keys/model/scopes.ts';
import { appRoute } from '../routes/root.tsx';
import { Button } from '../ui/Button.tsx';
import { CheckField } from '../ui/Choice.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { Table } from '../ui/Table.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const keysRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/keys',
  staticData: { nav: { label: 'API keys', permission: 'integrations:manage' } },
  component: KeysPage,
});

type KeyView = ResponseOf<'keys'>['keys'][number];

const minute = (iso: string | null) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');

function KeysPage() {
  const list = useQuery(queries.keys());
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(DEFAULT_SCOPES));
  const [created, setCreated] = useState<{ key: string; label: string } | null>(null);
  const [copied, setCopied] = useState('');
  const [revoking, setRevoking] = useState<{ id: string; label: string } | null>(null);
  const form = useFormErrors();

  const create = useWrite({
    run: () => call('createKey', { body: { label, scopes: [...scopes] } }),
    invalidates: [keys.keys()],
    onDone: (r) => {
      setCreated({ key: r.key, label: r.view.label });
      setCopied('');
      setLabel('');
    },
    onFail: (err) => form.show(err, ['label', 'scopes']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    create.mutate();
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
  const revoke = useWrite({
    run: (id: string) => call('revokeKey', { params: { id } }),
    invalidates: [keys.keys()],
    onDone: () => setRevoking(null),
  });

  return (
    <>
      <h1>API keys</h1>
      <p>Keys let programs use the link API. A key is shown once, when it is made; the server keeps only its hash.</p>
      <form onSubmit={submit} noValidate aria-labelledby="new-key-h">
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
              hint={SCOPE_TEXT[s]}
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
        <Button type="submit">Create key</Button>
      </form>
      <Table<KeyView>
        caption="Keys of the organisation"
        rows={list.data?.keys ?? []}
        rowKey={(k) => k.id}
        columns={[
          { heading: 'Label', cell: (k) => k.label },
          { heading: 'Scopes', cell: (k) => k.scopes.join(', ') },
          { heading: 'Created', cell: (k) => `${minute(k.createdAt)}${k.createdBy ? ` by ${k.createdBy}` : ''}` },
          { heading: 'Last used', cell: (k) => minute(k.lastUsedAt) },
          { heading: 'Status', cell: (k) => (k.status === 'active' ? 'Active' : 'Revoked') },
          {
            heading: 'Actions',
            hideHeading: true,
            cell: (k) =>
              k.status === 'active' ? (
                <Button variant="secondary" onClick={() => setRevoking({ id: k.id, label: k.label })}>
                  Revoke {k.label}
                </Button>
              ) : null,
          },
        ]}
      />
      <Dialog open={created !== null} title="Your new API key" onClose={() => setCreated(null)}>
        <p>
          This is the only time the key <strong>{created?.label}</strong> is shown. Copy it now and keep it somewhere safe.
        </p>
        <Field label="API key" value={created?.key ?? ''} onChange={() => undefined} readOnly className="secret" />
        <p role="status">{copied}</p>
        <div className="actions">
          <Button onClick={() => void copy()}>Copy key</Button>
          <Button variant="secondary" onClick={() => setCreated(null)}>
            Done
          </Button>
        </div>
      </Dialog>
      <Dialog open={revoking !== null} title={`Revoke ${revoking?.label ?? ''}?`} onClose={() => setRevoking(null)}>
        <p>Programs using this key are refused within a second. A revoked key cannot be restored, and its label stays taken.</p>
        <div className="actions">
          <Button onClick={() => revoking && revoke.mutate(revoking.id)}>Revoke key</Button>
          <Button variant="secondary" onClick={() => setRevoking(null)}>
            Cancel
          </Button>
        </div>
        <Feedback outcome={revoke.outcome} />
      </Dialog>
    </>
  );
}
