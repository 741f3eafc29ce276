import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, ok } from '../api';
import { Link, useLocation } from '../router';
import { ErrorAlert, Field, formErrors, PageHeading, useSubmit } from '../ui';

/**
 * The pages reached signed out (from the sign-in form or a mailed link): one column, like
 * the sign-in form, with the way back to it.
 */
function AccountPage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="sign-in">
      <PageHeading>{title}</PageHeading>
      {children}
      <p class="form-links">
        <Link href="/">Back to sign in</Link>
      </p>
    </main>
  );
}

/** A text input bound to one value of a form's state. */
function useFields<T extends Record<string, string>>(empty: T) {
  const [values, setValues] = useState(empty);
  const bind = (name: keyof T & string) => ({
    value: values[name],
    onInput: (event: { currentTarget: { value: string } }) =>
      setValues((previous) => ({ ...previous, [name]: event.currentTarget.value })),
  });
  return { values, bind };
}

/** A taken username comes back as CONFLICT naming its field: shown under it. */
function conflictOf(error: unknown, field: string): string | undefined {
  return error instanceof ApiError &&
    error.code === 'CONFLICT' &&
    (error.body.details as { field?: string } | undefined)?.field === field
    ? messageOf(error)
    : undefined;
}

const REGISTER_FIELDS = {
  username: '',
  email: '',
  password: '',
  firstName: '',
  lastName: '',
};

export function RegisterPage() {
  const { values, bind } = useFields(REGISTER_FIELDS);
  const [sentTo, setSentTo] = useState<string>();
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, Object.keys(REGISTER_FIELDS));
  const usernameTaken = conflictOf(error, 'username');

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      // Names left empty are left out: the API refuses an empty one.
      const { firstName, lastName, ...required } = values;
      await ok(
        api.POST('/v1/auth/register', {
          body: {
            ...required,
            ...(firstName ? { firstName } : {}),
            ...(lastName ? { lastName } : {}),
          },
        }),
      );
      setSentTo(values.email);
    });
  };

  if (sentTo !== undefined) {
    return (
      <AccountPage title="Check your mail">
        <p role="status">
          We sent a link to <strong>{sentTo}</strong>. Open it to confirm the address, then sign in.
          The link works for 24 hours.
        </p>
        <ResendVerification email={sentTo} />
      </AccountPage>
    );
  }
  return (
    <AccountPage title="Create an account">
      <ErrorAlert error={usernameTaken ? undefined : general} />
      <form onSubmit={onSubmit} noValidate>
        <Field
          name="username"
          label="Username"
          hint="3 to 32 letters, digits, _ . or -."
          error={fields.username ?? usernameTaken}
        >
          {(control) => <input {...control} autocomplete="username" {...bind('username')} />}
        </Field>
        <Field name="email" label="Email" error={fields.email}>
          {(control) => <input {...control} type="email" autocomplete="email" {...bind('email')} />}
        </Field>
        <Field name="password" label="Password" hint="8 to 128 characters." error={fields.password}>
          {(control) => (
            <input {...control} type="password" autocomplete="new-password" {...bind('password')} />
          )}
        </Field>
        <Field name="firstName" label="First name (optional)" error={fields.firstName}>
          {(control) => <input {...control} autocomplete="given-name" {...bind('firstName')} />}
        </Field>
        <Field name="lastName" label="Last name (optional)" error={fields.lastName}>
          {(control) => <input {...control} autocomplete="family-name" {...bind('lastName')} />}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </AccountPage>
  );
}

/** Another verification mail, for a lost or expired one (the API answers alike for any address). */
function ResendVerification({ email }: { email: string }) {
  const [resent, setResent] = useState(false);
  const { busy, error, run } = useSubmit();
  const resend = () =>
    void run(async () => {
      setResent(false);
      await ok(api.POST('/v1/auth/resend-verification', { body: { email } }));
      setResent(true);
    });
  return (
    <>
      <ErrorAlert error={error} />
      {resent && <p role="status">We sent the link again.</p>}
      <p>
        <button type="button" class="button-secondary" disabled={busy} onClick={resend}>
          Send the mail again
        </button>
      </p>
    </>
  );
}

export function VerifyEmailPage() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [verified, setVerified] = useState(false);
  const { busy, error, run } = useSubmit();
  // Verified on a click, never on opening: mail scanners open links and run their scripts,
  // and would confirm an address nobody read (the token works once).
  const verify = () =>
    void run(async () => {
      await ok(api.POST('/v1/auth/verify-email', { body: { token } }));
      setVerified(true);
    });
  return (
    <AccountPage title="Verify email">
      {verified ? (
        <p role="status">
          Your email address is confirmed. <Link href="/">Sign in</Link>
        </p>
      ) : (
        <>
          <ErrorAlert error={error} />
          <p>Confirm that this email address is yours.</p>
          <p>
            <button type="button" disabled={busy} onClick={verify}>
              {busy ? 'Confirming…' : 'Confirm my address'}
            </button>
          </p>
        </>
      )}
    </AccountPage>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['email']);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      await ok(api.POST('/v1/auth/forgot-password', { body: { email } }));
      setSent(true);
    });
  };

  if (sent) {
    return (
      <AccountPage title="Check your mail">
        <p role="status">
          If an account uses <strong>{email}</strong>, we sent it a link to set a new password. The
          link works for an hour.
        </p>
      </AccountPage>
    );
  }
  return (
    <AccountPage title="Forgot password">
      <p>Enter your account's email address: we will send you a link to set a new password.</p>
      <ErrorAlert error={general} />
      <form onSubmit={onSubmit} noValidate>
        <Field name="email" label="Email" error={fields.email}>
          {(control) => (
            <input
              {...control}
              type="email"
              autocomplete="email"
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send the link'}
        </button>
      </form>
    </AccountPage>
  );
}

/** The target of a reset mail and of an invitation: both set a password with the token. */
export function ResetPasswordPage() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const { values, bind } = useFields({ password: '', confirm: '' });
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['password']);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    // The one check made here: the API sees one password, so only the page can compare two.
    const differ = values.password !== values.confirm;
    setMismatch(differ);
    if (differ) {
      document.getElementById('field-confirm')?.focus();
      return;
    }
    void run(async () => {
      await ok(api.POST('/v1/auth/reset-password', { body: { token, password: values.password } }));
      setDone(true);
    });
  };

  if (done) {
    return (
      <AccountPage title="Password set">
        <p role="status">
          Your password is set, and every earlier sign-in has ended. <Link href="/">Sign in</Link>
        </p>
      </AccountPage>
    );
  }
  return (
    <AccountPage title="Set your password">
      <ErrorAlert error={general} />
      <form onSubmit={onSubmit} noValidate>
        <Field
          name="password"
          label="New password"
          hint="8 to 128 characters."
          error={fields.password}
        >
          {(control) => (
            <input {...control} type="password" autocomplete="new-password" {...bind('password')} />
          )}
        </Field>
        <Field
          name="confirm"
          label="New password again"
          error={mismatch ? 'The two passwords differ.' : undefined}
        >
          {(control) => (
            <input {...control} type="password" autocomplete="new-password" {...bind('confirm')} />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Set password'}
        </button>
      </form>
    </AccountPage>
  );
}
