// Sign-up (DASHBOARD_SIGNUP=open): an account with a new FREE organisation it owns; with sign-up
// by invitation only, the server's refusal is explained.
import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { useWrite } from '../data/use-write.ts';
import { rootRoute } from '../routes/root.tsx';
import { useSetSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

export const signUpRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-up', component: SignUpPage });

function SignUpPage() {
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [organisation, setOrganisation] = useState('');
  const form = useFormErrors();
  const signUp = useWrite({
    run: () => call('signUp', { body: { email, password, organisation } }),
    onDone: async (view) => {
      setSession(view);
      await navigate({ to: '/links' });
    },
    onFail: (err) => form.show(err, ['email', 'password', 'organisation']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    signUp.mutate();
  };
  return (
    <main className="narrow" id="main">
      <h1>Sign up</h1>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors[''] === 'Access denied' ? 'This server creates accounts by invitation only.' : form.errors['']} />
        <Field label="Organisation name" value={organisation} onChange={setOrganisation} error={form.errors.organisation} required />
        <Field label="E-mail" type="email" autoComplete="username" value={email} onChange={setEmail} error={form.errors.email} required />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          error={form.errors.password}
          hint="At least 12 characters."
          required
        />
        <Button type="submit">Create account</Button>
      </form>
    </main>
  );
}
