import { createRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { rootRoute } from '../routes/root.tsx';
import { useSetSession } from '../session.ts';
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
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      setSession(await call('signUp', { body: { email, password, organisation } }));
      await navigate({ to: '/links' });
    } catch (err) {
      form.show(err, ['email', 'password', 'organisation']);
    }
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
        <button type="submit">Create account</button>
      </form>
    </main>
  );
}
