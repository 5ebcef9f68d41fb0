import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { rootRoute, safeRedirect } from '../routes/root.tsx';
import { useSetSession } from '../session.ts';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';

const searchOf = (s: Record<string, unknown>) => ({ redirect: typeof s.redirect === 'string' ? s.redirect : undefined });

export const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in', validateSearch: searchOf, component: SignInPage });
export const secondFactorRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in/code', validateSearch: searchOf, component: SecondFactorPage });

function SignInPage() {
  const { redirect } = signInRoute.useSearch();
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useFormErrors();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    form.clear();
    try {
      const view = await call('signIn', { body: { email, password } });
      setSession(view);
      if (view.stage === 'second_factor') await navigate({ to: '/sign-in/code', search: { redirect } });
      else await navigate({ to: safeRedirect(redirect) });
    } catch (err) {
      form.show(err, ['email', 'password']);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="narrow" id="main">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors['']} />
        <Field label="E-mail" type="email" autoComplete="username" value={email} onChange={setEmail} error={form.errors.email} required />
        <Field label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} error={form.errors.password} required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p>
        No account? Ask an owner or admin of your organisation for an invitation. <Link to="/sign-up">Sign up</Link> if this server allows it.
      </p>
    </main>
  );
}

function SecondFactorPage() {
  const { redirect } = secondFactorRoute.useSearch();
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [code, setCode] = useState('');
  const form = useFormErrors();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    try {
      const view = await call('secondFactor', { body: { code } });
      setSession(view);
      await navigate({ to: safeRedirect(redirect) });
    } catch (err) {
      form.show(err, ['code']);
    }
  };
  return (
    <main className="narrow" id="main">
      <h1>Two-factor authentication</h1>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors['']} />
        <Field
          label="Code from your authenticator app, or a recovery code"
          inputMode="text"
          autoComplete="one-time-code"
          value={code}
          onChange={setCode}
          error={form.errors.code}
          required
        />
        <button type="submit">Continue</button>
      </form>
    </main>
  );
}
