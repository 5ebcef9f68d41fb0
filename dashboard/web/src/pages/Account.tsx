// Your account: password change (other sessions end), two-factor set-up and removal with the
// recovery codes shown once, and the sessions signed in, each ended here or all at once.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useOutcome, useWrite } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { useSession, useSetSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { Table } from '../ui/Table.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

type SessionRow = ResponseOf<'accountSessions'>['sessions'][number];

export const accountRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/account',
  staticData: { nav: { label: 'Your account' } },
  component: AccountPage,
});

function AccountPage() {
  const view = useSession();
  return (
    <>
      <h1>Your account</h1>
      <p>Signed in as {view.user.email}.</p>
      <PasswordSection />
      <TwoFactorSection />
      <SessionsSection />
    </>
  );
}

function PasswordSection() {
  const setSession = useSetSession();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const form = useFormErrors();
  const change = useWrite({
    run: () => call('changePassword', { body: { currentPassword, newPassword } }),
    onDone: (view) => {
      setSession(view);
      setCurrent('');
      setNew('');
    },
    onFail: (err) => form.show(err, ['currentPassword', 'newPassword']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    change.mutate();
  };
  return (
    <section aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors['']} />
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={setCurrent}
          error={form.errors.currentPassword}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          value={newPassword}
          onChange={setNew}
          error={form.errors.newPassword}
          hint="At least 12 characters. Every other session is signed out."
        />
        <Button type="submit">Change password</Button>
        {change.isSuccess ? <p role="status">Password changed; your other sessions were signed out.</p> : null}
      </form>
    </section>
  );
}

function TwoFactorSection() {
  const view = useSession();
  const setSession = useSetSession();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [setup, setSetup] = useState<{ secret: string; qrSvg: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const form = useFormErrors();
  const start = useWrite({
    run: () => call('twoFactorStart', { body: { password } }),
    onDone: (r) => {
      setSetup(r);
      setPassword('');
    },
    onFail: (err) => form.show(err, ['password']),
  });
  const confirm = useWrite({
    run: () => call('twoFactorConfirm', { body: { code } }),
    onDone: (r) => {
      setCodes(r.recoveryCodes);
      setSetup(null);
      setCode('');
      setSession(r.session);
    },
    onFail: (err) => form.show(err, ['code']),
  });
  const disable = useWrite({
    run: () => call('twoFactorDisable', { body: { password } }),
    onDone: (view) => {
      setSession(view);
      setPassword('');
      setCodes(null);
    },
    onFail: (err) => form.show(err, ['password']),
  });
  /** A form's submit: the write, with the form's errors cleared first. */
  const submitting = (write: { mutate(): void }) => (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    write.mutate();
  };
  return (
    <section aria-labelledby="tfa-h">
      <h2 id="tfa-h">Two-factor authentication</h2>
      <FormError message={form.errors['']} />
      {codes ? (
        <div role="status">
          <p>Two-factor authentication is on. Keep these recovery codes somewhere safe: each works once, and they are shown only now.</p>
          <ul className="codes" aria-label="Recovery codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {view.user.twoFactor ? (
        <form onSubmit={submitting(disable)} noValidate>
          <p>Two-factor authentication is on.</p>
          <Field
            label="Password to turn it off"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={form.errors.password}
          />
          <Button type="submit">Turn off two-factor authentication</Button>
        </form>
      ) : setup ? (
        <form onSubmit={submitting(confirm)} noValidate>
          <p>Scan this code with your authenticator app, or type the key below into it.</p>
          <img className="qr" alt="QR code of the two-factor key" src={`data:image/svg+xml;utf8,${encodeURIComponent(setup.qrSvg)}`} width={180} height={180} />
          <p>
            Key: <code>{setup.secret}</code>
          </p>
          <Field label="Code from the app" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={setCode} error={form.errors.code} />
          <Button type="submit">Turn on two-factor authentication</Button>
        </form>
      ) : (
        <form onSubmit={submitting(start)} noValidate>
          <p>Two-factor authentication is off.</p>
          <Field
            label="Password to set it up"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={form.errors.password}
          />
          <Button type="submit">Set up two-factor authentication</Button>
        </form>
      )}
    </section>
  );
}

function SessionsSection() {
  const sessions = useQuery(queries.accountSessions());
  const client = useQueryClient();
  const setSession = useSetSession();
  const navigate = useNavigate();
  const outcome = useOutcome();
  const end = useWrite({ run: (id: string) => call('endSession', { params: { id } }), invalidates: [keys.accountSessions()], shared: outcome });
  const everywhere = useWrite({
    run: () => call('signOutEverywhere'),
    onDone: async () => {
      client.clear();
      setSession(null);
      await navigate({ to: '/sign-in', search: { redirect: undefined } });
    },
    shared: outcome,
  });
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      {sessions.data ? (
        <Table<SessionRow>
          caption="Where you are signed in"
          rows={sessions.data.sessions}
          rowKey={(r) => r.id}
          columns={[
            { heading: 'Browser', cell: (r) => r.userAgent ?? 'unknown' },
            { heading: 'Signed in', cell: (r) => new Date(r.createdAt).toLocaleString() },
            { heading: 'Last seen', cell: (r) => new Date(r.lastSeenAt).toLocaleString() },
            {
              heading: 'Actions',
              hideHeading: true,
              cell: (r) => (r.current ? 'This session' : <Button onClick={() => end.mutate(r.id)}>Sign out this session</Button>),
            },
          ]}
        />
      ) : (
        <p role="status">Loading…</p>
      )}
      <Button onClick={() => everywhere.mutate()}>Sign out everywhere</Button>
      <Feedback outcome={outcome.outcome} />
    </section>
  );
}
