import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { useSession, useSetSession } from '../session.ts';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const accountRoute = createRoute({ getParentRoute: () => appRoute, path: '/account', component: AccountPage });

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
  const [done, setDone] = useState(false);
  const form = useFormErrors();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    setDone(false);
    try {
      setSession(await call('changePassword', { body: { currentPassword, newPassword } }));
      setCurrent('');
      setNew('');
      setDone(true);
    } catch (err) {
      form.show(err, ['currentPassword', 'newPassword']);
    }
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
        <button type="submit">Change password</button>
        {done ? <p role="status">Password changed; your other sessions were signed out.</p> : null}
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
  const start = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      setSetup(await call('twoFactorStart', { body: { password } }));
      setPassword('');
    } catch (err) {
      form.show(err, ['password']);
    }
  };
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      const r = await call('twoFactorConfirm', { body: { code } });
      setCodes(r.recoveryCodes);
      setSetup(null);
      setCode('');
      setSession(r.session);
    } catch (err) {
      form.show(err, ['code']);
    }
  };
  const disable = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      setSession(await call('twoFactorDisable', { body: { password } }));
      setPassword('');
      setCodes(null);
    } catch (err) {
      form.show(err, ['password']);
    }
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
        <form onSubmit={disable} noValidate>
          <p>Two-factor authentication is on.</p>
          <Field
            label="Password to turn it off"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={form.errors.password}
          />
          <button type="submit">Turn off two-factor authentication</button>
        </form>
      ) : setup ? (
        <form onSubmit={confirm} noValidate>
          <p>Scan this code with your authenticator app, or type the key below into it.</p>
          <img className="qr" alt="QR code of the two-factor key" src={`data:image/svg+xml;utf8,${encodeURIComponent(setup.qrSvg)}`} width={180} height={180} />
          <p>
            Key: <code>{setup.secret}</code>
          </p>
          <Field label="Code from the app" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={setCode} error={form.errors.code} />
          <button type="submit">Turn on two-factor authentication</button>
        </form>
      ) : (
        <form onSubmit={start} noValidate>
          <p>Two-factor authentication is off.</p>
          <Field
            label="Password to set it up"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            error={form.errors.password}
          />
          <button type="submit">Set up two-factor authentication</button>
        </form>
      )}
    </section>
  );
}

function SessionsSection() {
  const sessions = useQuery({ queryKey: ['account-sessions'], queryFn: () => call('accountSessions') });
  const client = useQueryClient();
  const setSession = useSetSession();
  const navigate = useNavigate();
  const end = async (id: string) => {
    await call('endSession', { params: { id } });
    await client.invalidateQueries({ queryKey: ['account-sessions'] });
  };
  const everywhere = async () => {
    await call('signOutEverywhere');
    client.clear();
    setSession(null);
    await navigate({ to: '/sign-in', search: { redirect: undefined } });
  };
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      {sessions.data ? (
        <table>
          <caption>Where you are signed in</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.sessions.map((s) => (
              <tr key={s.id}>
                <td>{s.userAgent ?? 'unknown'}</td>
                <td>{new Date(s.createdAt).toLocaleString()}</td>
                <td>{new Date(s.lastSeenAt).toLocaleString()}</td>
                <td>
                  {s.current ? (
                    'This session'
                  ) : (
                    <button type="button" onClick={() => void end(s.id)}>
                      Sign out this session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p role="status">Loading…</p>
      )}
      <button type="button" onClick={() => void everywhere()}>
        Sign out everywhere
      </button>
    </section>
  );
}
