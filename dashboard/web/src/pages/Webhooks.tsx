// Webhooks: add an endpoint (https URL and the event types it wants; the secret shown once in a
// dialog), and per endpoint edit its URL and event types, reveal or rotate the secret, send a test
// event, enable or disable, replay its messages of a time range, remove, and its delivery log
// (each attempt's time, status, duration and answer) with replay. Owners and admins manage;
// everyone sees. The forms are in webhooks/EndpointForms.tsx, the writes in webhooks/webhook-writes.ts.
import { createRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { useOutcome } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Table } from '../ui/Table.tsx';
import { AddEndpoint, EditEndpointForm, type Endpoint, ReplayRangeForm, SecretDialog } from './webhooks/EndpointForms.tsx';
import { type Shown, useEndpointActions, useWebhookAttempts, useWebhooks } from './webhooks/webhook-writes.ts';

export const webhooksRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/webhooks',
  staticData: { nav: { label: 'Webhooks' } },
  component: WebhooksPage,
});

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
  const outcome = useOutcome();
  const actions = useEndpointActions(e.id, outcome, onSecret);
  const [showLog, setShowLog] = useState(false);
  const [dialog, setDialog] = useState<'edit' | 'replay' | null>(null);
  const done = (m: string) => {
    setDialog(null);
    outcome.setOutcome(m ? { ok: true, text: m } : null);
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
          <Button onClick={() => setDialog('edit')}>Edit {e.url}</Button>
          <Button onClick={() => actions.test.mutate()}>Send test event to {e.url}</Button>
          <Button variant="secondary" onClick={() => actions.reveal.mutate()}>
            Reveal secret of {e.url}
          </Button>
          <Button variant="secondary" onClick={() => actions.rotate.mutate()}>
            Rotate secret of {e.url}
          </Button>
          <Button variant="secondary" onClick={() => actions.setEnabled.mutate(!e.enabled)}>
            {e.enabled ? 'Disable' : 'Enable'} {e.url}
          </Button>
          <Button variant="secondary" onClick={() => actions.remove.mutate()}>
            Remove {e.url}
          </Button>
          <Button variant="secondary" onClick={() => setDialog('replay')}>
            Replay messages of {e.url}
          </Button>
        </div>
      ) : null}
      <Dialog open={dialog === 'edit'} title={`Edit ${e.url}`} onClose={() => setDialog(null)}>
        <EditEndpointForm endpoint={e} eventTypes={eventTypes} onDone={done} />
      </Dialog>
      <Dialog open={dialog === 'replay'} title={`Replay messages of ${e.url}`} onClose={() => setDialog(null)}>
        <ReplayRangeForm endpoint={e} onDone={done} />
      </Dialog>
      <Feedback outcome={outcome.outcome} />
      <Button variant="secondary" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
        {showLog ? 'Hide' : 'Show'} delivery log of {e.url}
      </Button>
      {showLog ? <AttemptLog endpoint={e} onReplay={canManage ? (id) => actions.replay.mutate(id) : undefined} /> : null}
    </section>
  );
}

type Attempt = NonNullable<ReturnType<typeof useWebhookAttempts>['data']>['attempts'][number];

function AttemptLog({ endpoint: e, onReplay }: { endpoint: Endpoint; onReplay?: (messageId: string) => void }) {
  const attempts = useWebhookAttempts(e.id);
  const list = attempts.data?.attempts ?? [];
  if (attempts.data && list.length === 0) return <p>No delivery attempts yet.</p>;
  return (
    <Table<Attempt>
      caption={`Delivery attempts to ${e.url} (newest first, kept 30 days)`}
      rows={list}
      rowKey={(a) => `${a.messageId}-${a.attemptedAt}-${a.durationMs}`}
      columns={[
        { heading: 'Time', cell: (a) => new Date(a.attemptedAt).toLocaleString() },
        { heading: 'Event', cell: (a) => a.type },
        {
          heading: 'Message',
          cell: (a) => (
            <>
              <code>{a.messageId}</code>
              {a.replay ? ' (replay)' : ''}
            </>
          ),
        },
        { heading: 'Answer', cell: (a) => a.statusCode ?? a.error ?? 'no answer' },
        { heading: 'Duration', cell: (a) => `${a.durationMs} ms` },
        { heading: 'Response body', cell: (a) => <code>{a.responseBody.slice(0, 200)}</code> },
        onReplay && {
          heading: 'Replay',
          cell: (a) => (
            <Button variant="secondary" onClick={() => onReplay(a.messageId)}>
              Replay {a.messageId}
            </Button>
          ),
        },
      ]}
    />
  );
}
