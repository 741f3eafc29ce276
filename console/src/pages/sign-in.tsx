import { useState } from 'preact/hooks';
import { api, ApiError, ok } from '../api';
import { Link, navigate } from '../router';
import { session } from '../session';
import { ErrorAlert, Field, formErrors, PageHeading, useLoad, useSubmit } from '../ui';
import { type MfaChallenge, MfaStep } from './mfa-step';
import { PasskeySignIn, PasskeyStep } from './passkeys';

export function SignInPage() {
  const [notice, setNotice] = useState(() => session.takeNotice());
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<MfaChallenge>();
  const { busy, error, run } = useSubmit();
  const sso = useLoad(() => ok(api.GET('/v1/auth/sso/config')), []);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    setNotice(undefined);
    void run(async () => {
      try {
        const { token, expiresIn, refreshExpiresIn } = await ok(
          // The refresh token goes into an HttpOnly cookie, out of this script's reach.
          api.POST('/v1/auth/login', { body: { username, password, refreshTokenIn: 'cookie' } }),
        );
        session.signIn(token, expiresIn, refreshExpiresIn);
      } catch (failure) {
        if (!(failure instanceof ApiError)) throw failure;
        const details = failure.body.details as
          (MfaChallenge & { enrolmentToken?: string; expiresIn: number }) | undefined;
        if (failure.code === 'MFA_REQUIRED' && details) return setChallenge(details);
        if (failure.code === 'MFA_ENROLMENT_REQUIRED' && details?.enrolmentToken) {
          // A token that only enrols: the Security page is all it opens.
          navigate('/settings/security', { replace: true });
          return session.signInToEnrol(details.enrolmentToken, details.expiresIn);
        }
        throw failure;
      }
    });
  };
  const { fields, general } = formErrors(error, ['username', 'password']);

  if (challenge) {
    const restart = (message?: string) => {
      setChallenge(undefined);
      setPassword('');
      setNotice(message);
    };
    return (
      <MfaStep
        challenge={challenge}
        onRestart={restart}
        extra={
          challenge.methods.includes('passkey') && (
            <PasskeyStep mfaToken={challenge.mfaToken} onRestart={restart} />
          )
        }
      />
    );
  }

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
      <PasskeySignIn />
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
