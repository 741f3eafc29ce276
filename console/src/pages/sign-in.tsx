import { useState } from 'preact/hooks';
import { api, ok } from '../api';
import { session } from '../session';
import { Link } from '../router';
import { ErrorAlert, Field, formErrors, PageHeading, useLoad, useSubmit } from '../ui';

export function SignInPage() {
  const [notice] = useState(() => session.takeNotice());
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSubmit();
  const sso = useLoad(() => ok(api.GET('/v1/auth/sso/config')), []);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      const { token, expiresIn, refreshExpiresIn } = await ok(
        // The refresh token goes into an HttpOnly cookie, out of this script's reach.
        api.POST('/v1/auth/login', { body: { username, password, refreshTokenIn: 'cookie' } }),
      );
      session.signIn(token, expiresIn, refreshExpiresIn);
    });
  };
  const { fields, general } = formErrors(error, ['username', 'password']);

  return (
    <main id="main" class="sign-in">
      <PageHeading>Sign in</PageHeading>
      {notice && (
        <p class="alert alert-info" role="status">
          {notice}
        </p>
      )}
      <ErrorAlert error={general} />
      <form onSubmit={onSubmit} noValidate>
        <Field name="username" label="Username" error={fields.username}>
          {(control) => (
            <input
              {...control}
              autocomplete="username"
              value={username}
              onInput={(event) => setUsername(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field name="password" label="Password" error={fields.password}>
          {(control) => (
            <input
              {...control}
              type="password"
              autocomplete="current-password"
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {sso.data?.enabled && (
        <p>
          {/* A navigation, not a call: the provider's pages take over the browser. */}
          <a href="/v1/auth/sso">Sign in with {sso.data.displayName}</a>
        </p>
      )}
      <p class="form-links">
        <Link href="/forgot-password">Forgot your password?</Link>
        <Link href="/register">Create an account</Link>
      </p>
    </main>
  );
}
