import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Field } from '../components/common.tsx';
import { ApiError, request } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { navigate, useLocation } from '../lib/router.tsx';

type Kind = 'login' | 'setup' | 'set-password';

/** Set when a password was just chosen, for the sign-in page to say so (pages take no query but the token). */
let passwordJustSet = false;

const TEXT: Record<Kind, { title: string; intro: string; button: string }> = {
  login: { title: 'Sign in to Picket', intro: '', button: 'Sign in' },
  setup: {
    title: 'Set up Picket',
    intro: 'Create the first administrator. The link printed in the server log is valid for 24 hours.',
    button: 'Create administrator',
  },
  'set-password': {
    title: 'Choose a password',
    intro: 'Choose the password for your Picket account.',
    button: 'Save password',
  },
};

function explain(error: unknown, kind: Kind): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.';
  if (error.status === 429) {
    const wait = error.retryAfter === null ? 'a while' : `${Math.ceil(error.retryAfter / 60)} min`;
    return `Too many attempts. Try again in ${wait}.`;
  }
  if (error.status === 401 && kind === 'login') return 'That e-mail and password do not match an account.';
  if (error.status === 401 || error.status === 404 || error.status === 410)
    return 'This link is no longer valid. Ask an administrator for a new one.';
  return error.message;
}

/** Sign-in, first-start setup and set-password: one form, the fields each needs. */
export function AuthPage({ kind }: { kind: Kind }) {
  const { search } = useLocation();
  const token = search.get('token') ?? '';
  const client = useQueryClient();
  const [values, setValues] = useState({ email: '', name: '', password: '', confirm: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const text = TEXT[kind];
  const missingToken = kind !== 'login' && token === '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setMessage('');
    setErrors({});
    if (kind !== 'login' && values.password !== values.confirm) {
      setErrors({ confirm: 'The two passwords differ.' });
      return;
    }
    if (kind !== 'login' && [...values.password].length < 10) {
      setErrors({ password: 'At least 10 characters.' });
      return;
    }
    setBusy(true);
    try {
      if (kind === 'login') await request('POST', '/auth/login', { email: values.email, password: values.password });
      if (kind === 'setup')
        await request('POST', '/auth/setup', {
          token,
          email: values.email,
          name: values.name,
          password: values.password,
        });
      if (kind === 'set-password') await request('POST', '/auth/set-password', { token, password: values.password });
      if (kind === 'login') {
        await client.invalidateQueries({ queryKey: ['me'] });
        navigate('/', { replace: true });
      } else {
        passwordJustSet = true;
        navigate('/login', { replace: true });
      }
    } catch (error) {
      if (error instanceof ApiError && error.details.length > 0) {
        const mapped = fieldErrors(error.details, ['email', 'name', 'password', 'token']);
        setErrors(mapped.byField);
        setMessage(mapped.unplaced.join(' ') || (mapped.byField.token ?? ''));
      } else {
        setMessage(explain(error, kind));
      }
    } finally {
      setBusy(false);
    }
  };

  const set = (key: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: event.target.value }));

  return (
    <main className="auth" id="main">
      <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="auth-title">
        <p className="brand" aria-hidden="true">
          <span className="logo">◆</span> Picket
        </p>
        <h1 id="auth-title">{text.title}</h1>
        {text.intro && <p className="muted">{text.intro}</p>}
        {kind === 'login' && passwordJustSet && (
          <p className="note ok" role="status">
            Your password is set. Sign in with it.
          </p>
        )}
        {missingToken ? (
          <p className="note error" role="alert">
            This page needs the link with its token (…?token=…). Use the full link you were given.
          </p>
        ) : (
          <>
            {kind !== 'set-password' && (
              <Field label="E-mail" error={errors.email}>
                {(p) => (
                  <input
                    {...p}
                    type="email"
                    autoComplete="username"
                    required
                    value={values.email}
                    onChange={set('email')}
                  />
                )}
              </Field>
            )}
            {kind === 'setup' && (
              <Field label="Name" error={errors.name}>
                {(p) => <input {...p} autoComplete="name" required value={values.name} onChange={set('name')} />}
              </Field>
            )}
            <Field
              label="Password"
              error={errors.password}
              hint={kind === 'login' ? undefined : '10 to 256 characters.'}
            >
              {(p) => (
                <input
                  {...p}
                  type="password"
                  autoComplete={kind === 'login' ? 'current-password' : 'new-password'}
                  required
                  value={values.password}
                  onChange={set('password')}
                />
              )}
            </Field>
            {kind !== 'login' && (
              <Field label="Password again" error={errors.confirm}>
                {(p) => (
                  <input
                    {...p}
                    type="password"
                    autoComplete="new-password"
                    required
                    value={values.confirm}
                    onChange={set('confirm')}
                  />
                )}
              </Field>
            )}
            {message && (
              <p className="note error" role="alert">
                {message}
              </p>
            )}
            <button className="primary wide" type="submit" disabled={busy}>
              {busy ? 'Please wait…' : text.button}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
