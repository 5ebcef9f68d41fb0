// An invitation (its token in the URL's fragment): who invites whom as what, then a password
// (a new account's, or the existing one's) accepts it and signs in.
import { useQuery } from '@tanstack/react-query';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { queries } from '../data/queries.ts';
import { useWrite } from '../data/use-write.ts';
import { rootRoute } from '../routes/root.tsx';
import { useSetSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const inviteRoute = createRoute({ getParentRoute: () => rootRoute, path: '/invite', component: InvitePage });

/** The token is in the URL's fragment, which no server sees. */
const tokenOfLocation = (): string => decodeURIComponent(window.location.hash.replace(/^#/, ''));

function InvitePage() {
  const [token] = useState(tokenOfLocation);
  const invite = useQuery({ ...queries.invite(token), retry: false });
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const form = useFormErrors();
  const accept = useWrite({
    run: () => call('inviteAccept', { body: { token, password, ...(invite.data?.email ? {} : { email }) } }),
    onDone: async (view) => {
      setSession(view);
      if (view.stage === 'second_factor') await navigate({ to: '/sign-in/code', search: { redirect: '/links' } });
      else await navigate({ to: '/account' });
    },
    onFail: (err) => form.show(err, ['email', 'password']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    accept.mutate();
  };
  if (invite.isPending)
    return (
      <main className="narrow" id="main">
        <h1>Invitation</h1>
        <p role="status">Checking the invitation…</p>
      </main>
    );
  if (invite.isError)
    return (
      <main className="narrow" id="main">
        <h1>Invitation</h1>
        <p className="error" role="alert">
          {invite.error instanceof ApiError ? invite.error.message : 'The invitation could not be checked.'} Ask for a new one.
        </p>
      </main>
    );
  const data = invite.data;
  return (
    <main className="narrow" id="main">
      <h1>Join {data.orgName}</h1>
      <p>
        You are invited as <strong>{data.role}</strong>
        {data.email ? (
          <>
            {' '}
            with the address <strong>{data.email}</strong>
          </>
        ) : null}
        .
      </p>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors['']} />
        {data.email ? null : <Field label="E-mail" type="email" autoComplete="username" value={email} onChange={setEmail} error={form.errors.email} required />}
        <Field
          label={data.existingUser ? 'Your current password' : 'Choose a password'}
          type="password"
          autoComplete={data.existingUser ? 'current-password' : 'new-password'}
          value={password}
          onChange={setPassword}
          error={form.errors.password}
          hint={data.existingUser ? 'You have an account already: your password adds this organisation to it.' : 'At least 12 characters.'}
          required
        />
        <Button type="submit">{data.existingUser ? 'Join' : 'Create account'}</Button>
      </form>
    </main>
  );
}
