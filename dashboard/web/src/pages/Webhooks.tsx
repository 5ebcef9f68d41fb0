// Webhooks: add an endpoint (https URL and the event types it wants; the secret shown once in a
// dialog), and per endpoint edit its URL and event types, reveal or rotate the secret, send a test
// event, enable or disable, replay its messages of a time range, remove, and its delivery log
// (each attempt's time, status, duration and answer) with replay. Owners and admins manage;
// everyone sees.
import { createRoute } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { ApiError } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { CheckField } from '../ui/Choice.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';
import { useWebhookActions, useWebhookAttempts, useWebhooks } from './webhook-hooks.ts';

export const webhooksRoute = createRoute({ getParentRoute: () => appRoute, path: '/webhooks', component: WebhooksPage });

type Endpoint = ResponseOf<'webhooks'>['endpoints'][number];
interface Shown {
  title: string;
  secret: string;
}

function WebhooksPage() {
  const view = useSession();
  const canManage = may(view, 'integrations:manage');
  const hooks = useWebhooks();
  const [shown, setShown] = useState<Shown | null>(null);
  // The page (and its heading) appears once the list and the event types are loaded, whole.
  if (!hooks.data) return <p role="status">{hooks.isError ? 'The webhooks could not be loaded; reload the page.' : 'Loading webhooks…'}</p>;
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        Each endpoint receives the events it wants as signed POST requests (Standard Webhooks: verify the <code>webhook-signature</code> header with the
        endpoint's secret). A failed delivery is retried for about a day and a half; an answer of 410 disables the endpoint.
      </p>
      {canManage ? <AddEndpoint eventTypes={hooks.data.eventTypes} onAdded={(secret) => setShown({ title: 'Your new signing secret', secret })} /> : null}
      {hooks.data.endpoints.map((e) => (
        <EndpointCard key={e.id} endpoint={e} eventTypes={hooks.data.eventTypes} canManage={canManage} onSecret={setShown} />
      ))}
      {hooks.data.endpoints.length === 0 ? <p>No webhook endpoints yet.</p> : null}
      <SecretDialog shown={shown} onClose={() => setShown(null)} />
    </>
  );
}

function EventChoices({
  eventTypes,
  chosen,
  onChange,
  error,
}: {
  eventTypes: readonly string[];
  chosen: string[];
  onChange(c: string[]): void;
  error?: string;
}) {
  return (
    <fieldset>
      <legend>Events to send</legend>
      {eventTypes.map((t) => (
        <CheckField key={t} label={t} checked={chosen.includes(t)} onChange={(on) => onChange(on ? [...chosen, t] : chosen.filter((x) => x !== t))} />
      ))}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function AddEndpoint({ eventTypes, onAdded }: { eventTypes: readonly string[]; onAdded(secret: string): void }) {
  const actions = useWebhookActions();
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const form = useFormErrors();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      const r = await actions.add(url, chosen);
      setUrl('');
      setChosen([]);
      onAdded(r.secret);
    } catch (err) {
      form.show(err, ['url', 'eventTypes']);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="add-webhook-h">
      <h2 id="add-webhook-h">Add an endpoint</h2>
      <FormError message={form.errors['']} />
      <Field label="Endpoint URL" value={url} onChange={setUrl} error={form.errors.url} hint="An https URL on the public internet." />
      <EventChoices eventTypes={eventTypes} chosen={chosen} onChange={setChosen} error={form.errors.eventTypes} />
      <button type="submit">Add endpoint</button>
    </form>
  );
}

function SecretDialog({ shown, onClose }: { shown: Shown | null; onClose(): void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(shown?.secret ?? '');
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  };
  return (
    <Dialog
      open={shown !== null}
      title={shown?.title ?? ''}
      onClose={() => {
        setCopied('');
        onClose();
      }}
    >
      <p>Receivers verify every message with this secret. Keep it somewhere safe.</p>
      <Field label="Signing secret" value={shown?.secret ?? ''} onChange={() => undefined} readOnly className="secret" />
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p role="status">{copied}</p>
    </Dialog>
  );
}

/**
 * Edits the endpoint's URL and event types in a dialog (mounted while open, so it starts from the
 * endpoint as listed); the server's refusal is shown by its field.
 */
function EditEndpointForm({ endpoint: e, eventTypes, onDone }: { endpoint: Endpoint; eventTypes: readonly string[]; onDone(message: string): void }) {
  const actions = useWebhookActions();
  const [url, setUrl] = useState(e.url);
  const [chosen, setChosen] = useState<string[]>([...e.eventTypes]);
  const form = useFormErrors();
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    form.clear();
    try {
      await actions.update(e.id, url, chosen);
      onDone('Endpoint saved.');
    } catch (err) {
      form.show(err, ['url', 'eventTypes']);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormError message={form.errors['']} />
      <Field label="Endpoint URL" value={url} onChange={setUrl} error={form.errors.url} hint="An https URL on the public internet." />
      <EventChoices eventTypes={eventTypes} chosen={chosen} onChange={setChosen} error={form.errors.eventTypes} />
      <SubmitOrCancel submit="Save changes" onCancel={() => onDone('')} />
    </form>
  );
}

/** A dialog form's buttons: its submit, and Cancel. */
function SubmitOrCancel({ submit, onCancel }: { submit: string; onCancel(): void }) {
  return (
    <div className="actions">
      <button type="submit">{submit}</button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** A datetime-local value as an ISO instant (the browser's zone); anything else as typed, for the server to refuse by its field. */
const isoOf = (local: string): string => {
  const d = new Date(local);
  return local === '' || Number.isNaN(d.getTime()) ? local : d.toISOString();
};

/** Sends again every message of the endpoint queued in a time range. */
function ReplayRangeForm({ endpoint: e, onDone }: { endpoint: Endpoint; onDone(message: string): void }) {
  const actions = useWebhookActions();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const form = useFormErrors();
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    form.clear();
    try {
      onDone(`${await actions.replayRange(e.id, isoOf(from), isoOf(to))} message(s) queued again.`);
    } catch (err) {
      form.show(err, ['from', 'to']);
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <p>Every message queued for this endpoint from the first time (inclusive) to the second (exclusive), in your local time, is sent again with its id.</p>
      <FormError message={form.errors['']} />
      <Field label="From" type="datetime-local" step={1} value={from} onChange={setFrom} error={form.errors.from} />
      <Field label="To" type="datetime-local" step={1} value={to} onChange={setTo} error={form.errors.to} />
      <SubmitOrCancel submit="Replay messages" onCancel={() => onDone('')} />
    </form>
  );
}

function EndpointCard({
  endpoint: e,
  eventTypes,
  canManage,
  onSecret,
}: {
  endpoint: Endpoint;
  eventTypes: readonly string[];
  canManage: boolean;
  onSecret(s: Shown): void;
}) {
  const actions = useWebhookActions();
  const [message, setMessage] = useState('');
  const [showLog, setShowLog] = useState(false);
  const [dialog, setDialog] = useState<'edit' | 'replay' | null>(null);
  const done = (m: string) => {
    setDialog(null);
    setMessage(m);
  };
  const act = async (work: () => Promise<string | undefined>) => {
    setMessage('');
    try {
      setMessage((await work()) ?? '');
    } catch (err) {
      setMessage(err instanceof ApiError ? err.message : 'That did not work; try again.');
    }
  };
  const headingId = `webhook-${e.id}`;
  const status = e.enabled ? 'Enabled' : e.disabledReason === 'GONE' ? 'Disabled (the endpoint answered 410 Gone)' : 'Disabled';
  return (
    <section aria-labelledby={headingId} className="card">
      <h2 id={headingId}>{e.url}</h2>
      <p>
        Status: <strong>{status}</strong>. Events: {e.eventTypes.join(', ')}. Secret ends in <code>{e.secretLast4}</code>.
      </p>
      {canManage ? (
        <div className="actions">
          <button type="button" onClick={() => setDialog('edit')}>
            Edit {e.url}
          </button>
          <button type="button" onClick={() => void act(async () => `Test event ${await actions.test(e.id)} queued.`)}>
            Send test event to {e.url}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              void act(async () => {
                onSecret({ title: 'Signing secret', secret: await actions.reveal(e.id) });
                return undefined;
              })
            }
          >
            Reveal secret of {e.url}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              void act(async () => {
                onSecret({ title: 'Your new signing secret (the previous one also signs for 24 hours)', secret: await actions.rotate(e.id) });
                return 'Secret rotated.';
              })
            }
          >
            Rotate secret of {e.url}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              void act(async () => {
                await actions.setEnabled(e.id, !e.enabled);
                return e.enabled ? 'Disabled.' : 'Enabled.';
              })
            }
          >
            {e.enabled ? 'Disable' : 'Enable'} {e.url}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() =>
              void act(async () => {
                await actions.remove(e.id);
                return undefined;
              })
            }
          >
            Remove {e.url}
          </button>
          <button type="button" className="secondary" onClick={() => setDialog('replay')}>
            Replay messages of {e.url}
          </button>
        </div>
      ) : null}
      <Dialog open={dialog === 'edit'} title={`Edit ${e.url}`} onClose={() => setDialog(null)}>
        <EditEndpointForm endpoint={e} eventTypes={eventTypes} onDone={done} />
      </Dialog>
      <Dialog open={dialog === 'replay'} title={`Replay messages of ${e.url}`} onClose={() => setDialog(null)}>
        <ReplayRangeForm endpoint={e} onDone={done} />
      </Dialog>
      <p role="status">{message}</p>
      <button type="button" className="secondary" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
        {showLog ? 'Hide' : 'Show'} delivery log of {e.url}
      </button>
      {showLog ? <AttemptLog endpoint={e} canManage={canManage} onMessage={setMessage} /> : null}
    </section>
  );
}

function AttemptLog({ endpoint: e, canManage, onMessage }: { endpoint: Endpoint; canManage: boolean; onMessage(m: string): void }) {
  const attempts = useWebhookAttempts(e.id, true);
  const actions = useWebhookActions();
  const list = attempts.data?.attempts ?? [];
  if (attempts.data && list.length === 0) return <p>No delivery attempts yet.</p>;
  return (
    <table>
      <caption>Delivery attempts to {e.url} (newest first, kept 30 days)</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Message</th>
          <th scope="col">Answer</th>
          <th scope="col">Duration</th>
          <th scope="col">Response body</th>
          {canManage ? <th scope="col">Replay</th> : null}
        </tr>
      </thead>
      <tbody>
        {list.map((a) => (
          <tr key={`${a.messageId}-${a.attemptedAt}-${a.durationMs}`}>
            <td>{new Date(a.attemptedAt).toLocaleString()}</td>
            <td>{a.type}</td>
            <td>
              <code>{a.messageId}</code>
              {a.replay ? ' (replay)' : ''}
            </td>
            <td>{a.statusCode ?? a.error ?? 'no answer'}</td>
            <td>{a.durationMs} ms</td>
            <td>
              <code>{a.responseBody.slice(0, 200)}</code>
            </td>
            {canManage ? (
              <td>
                <button
                  type="button"
                  className="secondary"
                  onClick={() =>
                    void actions.replay(a.messageId).then(
                      () => onMessage(`Message ${a.messageId} queued again.`),
                      (err: unknown) => onMessage(err instanceof ApiError ? err.message : 'That did not work; try again.'),
                    )
                  }
                >
                  Replay {a.messageId}
                </button>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
