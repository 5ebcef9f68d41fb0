// Sign-in: e-mail and password, then (when the account has it) the second factor; afterwards back
// to where the user was (same-origin paths only).
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { useWrite } from '../data/use-write.ts';
import { rootRoute, safeRedirect } from '../routes/root.tsx';
import { useSetSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
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
  const form = useFormErrors();
  const signIn = useWrite({
    run: () => call('signIn', { body: { email, password } }),
    onDone: async (view) => {
      setSession(view);
      if (view.stage === 'second_factor') await navigate({ to: '/sign-in/code', search: { redirect } });
      else await navigate({ to: safeRedirect(redirect) });
    },
    onFail: (err) => form.show(err, ['email', 'password']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    signIn.mutate();
  };
  return (
    <main className="narrow" id="main">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <FormError message={form.errors['']} />
        <Field label="E-mail" type="email" autoComplete="username" value={email} onChange={setEmail} error={form.errors.email} required />
        <Field label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} error={form.errors.password} required />
        <Button type="submit" disabled={signIn.isPending}>
          Sign in
        </Button>
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
  const verify = useWrite({
    run: () => call('secondFactor', { body: { code } }),
    onDone: async (view) => {
      setSession(view);
      await navigate({ to: safeRedirect(redirect) });
    },
    onFail: (err) => form.show(err, ['code']),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.clear();
    verify.mutate();
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
        <Button type="submit">Continue</Button>
      </form>
    </main>
  );
}
