// The Webhooks page's forms: add an endpoint, edit one (a dialog), replay a time range (a dialog),
// and the dialog that shows a signing secret once. A refusal lands next to its field, and what was
// typed stays.
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../../contract/schemas.ts';
import { call } from '../../api.ts';
import { Button } from '../../ui/Button.tsx';
import { CheckField } from '../../ui/Choice.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { Field, FormError } from '../../ui/Field.tsx';
import { useFormErrors } from '../../ui/use-form-errors.ts';
import { type Shown, useWebhookWrite } from './webhook-writes.ts';

export type Endpoint = ResponseOf<'webhooks'>['endpoints'][number];

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

const URL_HINT = 'An https URL on the public internet.';

export function AddEndpoint({ eventTypes, onAdded }: { eventTypes: readonly string[]; onAdded(secret: string): void }) {
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const form = useFormErrors();
  const add = useWebhookWrite({
    run: () => call('addWebhook', { body: { url, eventTypes: chosen } }),
    onDone: (r) => {
      setUrl('');
      setChosen([]);
      onAdded(r.secret);
    },
    onFail: (err) => form.show(err, ['url', 'eventTypes']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    add.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="add-webhook-h">
      <h2 id="add-webhook-h">Add an endpoint</h2>
      <FormError message={form.errors['']} />
      <Field label="Endpoint URL" value={url} onChange={setUrl} error={form.errors.url} hint={URL_HINT} />
      <EventChoices eventTypes={eventTypes} chosen={chosen} onChange={setChosen} error={form.errors.eventTypes} />
      <Button type="submit">Add endpoint</Button>
    </form>
  );
}

export function SecretDialog({ shown, onClose }: { shown: Shown | null; onClose(): void }) {
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
        <Button onClick={() => void copy()}>Copy secret</Button>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      <p role="status">{copied}</p>
    </Dialog>
  );
}

/** A dialog form's buttons: its submit, and Cancel. */
function SubmitOrCancel({ submit, onCancel }: { submit: string; onCancel(): void }) {
  return (
    <div className="actions">
      <Button type="submit">{submit}</Button>
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}

/**
 * Edits the endpoint's URL and event types in a dialog (mounted while open, so it starts from the
 * endpoint as listed); the server's refusal is shown by its field.
 */
export function EditEndpointForm({ endpoint: e, eventTypes, onDone }: { endpoint: Endpoint; eventTypes: readonly string[]; onDone(message: string): void }) {
  const [url, setUrl] = useState(e.url);
  const [chosen, setChosen] = useState<string[]>([...e.eventTypes]);
  const form = useFormErrors();
  const update = useWebhookWrite({
    run: () => call('updateWebhook', { params: { id: e.id }, body: { url, eventTypes: chosen } }),
    onDone: () => onDone('Endpoint saved.'),
    onFail: (err) => form.show(err, ['url', 'eventTypes']),
  });
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    form.clear();
    update.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormError message={form.errors['']} />
      <Field label="Endpoint URL" value={url} onChange={setUrl} error={form.errors.url} hint={URL_HINT} />
      <EventChoices eventTypes={eventTypes} chosen={chosen} onChange={setChosen} error={form.errors.eventTypes} />
      <SubmitOrCancel submit="Save changes" onCancel={() => onDone('')} />
    </form>
  );
}

/** A datetime-local value as an ISO instant (the browser's zone); anything else as typed, for the server to refuse by its field. */
const isoOf = (local: string): string => {
  const d = new Date(local);
  return local === '' || Number.isNaN(d.getTime()) ? local : d.toISOString();
};

/** Sends again every message of the endpoint queued in a time range. */
export function ReplayRangeForm({ endpoint: e, onDone }: { endpoint: Endpoint; onDone(message: string): void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const form = useFormErrors();
  const replay = useWebhookWrite({
    run: () => call('replayWebhookRange', { params: { id: e.id }, body: { from: isoOf(from), to: isoOf(to) } }),
    onDone: (r) => onDone(`${r.replayed.length} message(s) queued again.`),
    onFail: (err) => form.show(err, ['from', 'to']),
  });
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    form.clear();
    replay.mutate();
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
