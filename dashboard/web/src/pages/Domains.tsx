// Custom domains: add one (PENDING with its TXT record to create), see its status, the record, the
// last check and whether it points at the default short host; check now; remove. Only ACTIVE
// domains serve links.
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
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const domainsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/domains',
  staticData: { nav: { label: 'Domains' } },
  component: DomainsPage,
});

type DomainView = ResponseOf<'domains'>['domains'][number];

const STATUS_TEXT: Record<DomainView['status'], string> = {
  PENDING: 'Pending verification',
  ACTIVE: 'Active',
  FAILED: 'Failed (not verified within 7 days)',
};

function DomainsPage() {
  const view = useSession();
  const canManage = may(view, 'integrations:manage');
  const domains = useQuery(queries.domains());
  const [host, setHost] = useState('');
  const form = useFormErrors();
  const add = useWrite({
    run: () => call('addDomain', { body: { host } }),
    invalidates: [keys.domains()],
    onDone: () => setHost(''),
    onFail: (err) => form.show(err, ['host']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    add.mutate();
  };
  return (
    <>
      <h1>Custom domains</h1>
      <p>
        Short links can use your own domain (e.g. <code>go.example.com</code>). A domain serves links once it is verified: add the TXT record shown for it at
        your DNS provider; it is checked every minute for the first hour, then hourly, for 7 days.
      </p>
      {canManage ? (
        <form onSubmit={submit} noValidate aria-labelledby="add-domain-h">
          <h2 id="add-domain-h">Add a domain</h2>
          <FormError message={form.errors['']} />
          <Field label="Domain" value={host} onChange={setHost} error={form.errors.host} hint="A host name only: no https://, no path." />
          <Button type="submit">Add domain</Button>
        </form>
      ) : null}
      {(domains.data?.domains ?? []).map((d) => (
        <DomainCard key={d.id} domain={d} defaultHost={domains.data?.defaultHost ?? ''} canManage={canManage} />
      ))}
      {domains.data && domains.data.domains.length === 0 ? <p>No custom domains yet.</p> : null}
    </>
  );
}

function DomainCard({ domain: d, defaultHost, canManage }: { domain: DomainView; defaultHost: string; canManage: boolean }) {
  const outcome = useOutcome();
  const check = useWrite({
    run: () => call('checkDomain', { params: { id: d.id } }),
    invalidates: [keys.domains()],
    said: () => 'Checked.',
    shared: outcome,
  });
  const remove = useWrite({
    run: () => call('removeDomain', { params: { id: d.id } }),
    invalidates: [keys.domains()],
    said: () => `${d.host} removed.`,
    shared: outcome,
  });
  const headingId = `domain-${d.id}`;
  return (
    <section aria-labelledby={headingId} className="card">
      <h2 id={headingId}>{d.host}</h2>
      <p>
        Status: <strong>{STATUS_TEXT[d.status]}</strong>
        {d.verifiedAt ? ` since ${new Date(d.verifiedAt).toLocaleString()}` : ''}
      </p>
      {d.status !== 'ACTIVE' && d.record ? (
        <>
          <p>Add this TXT record at your DNS provider:</p>
          <Field label={`TXT record name for ${d.host}`} value={d.record.name} onChange={() => undefined} readOnly className="secret" />
          <Field label={`TXT record value for ${d.host}`} value={d.record.value} onChange={() => undefined} readOnly className="secret" />
        </>
      ) : null}
      <p>
        {d.pointsAtDefault === true
          ? `It points at ${defaultHost}.`
          : `To serve links, point it at ${defaultHost}: a CNAME record to ${defaultHost}, or the same A/AAAA addresses.${d.pointsAtDefault === false ? ' It does not yet.' : ''}`}
      </p>
      {d.lastCheckedAt ? (
        <p>
          Last checked {new Date(d.lastCheckedAt).toLocaleString()}
          {d.lastCheckError ? `: ${d.lastCheckError}` : ''}
          {d.nextCheckAt ? `; next check ${new Date(d.nextCheckAt).toLocaleString()}` : ''}.
        </p>
      ) : null}
      {canManage ? (
        <div className="actions">
          {d.status !== 'ACTIVE' ? <Button onClick={() => check.mutate()}>Check {d.host} now</Button> : null}
          <Button variant="secondary" onClick={() => remove.mutate()}>
            Remove {d.host}
          </Button>
        </div>
      ) : null}
      <Feedback outcome={outcome.outcome} />
    </section>
  );
}
