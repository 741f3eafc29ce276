import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError, ok } from '../api';
import { session } from '../session';
import { ErrorAlert, Field, formErrors, PageHeading, TotpCodeInput, useSubmit } from '../ui';

/** `details` of a login's 401 MFA_REQUIRED. */
export interface MfaChallenge {
  mfaToken: string;
  methods: string[];
}

interface MfaStepProps {
  challenge: MfaChallenge;
  /** Back to the password form, saying why when the step can no longer be completed. */
  onRestart: (message?: string) => void;
  /** Other ways through the step the challenge's methods offer, such as a passkey. */
  extra?: ComponentChildren;
}

export const RESTART_MESSAGE =
  'The sign-in took too long or had too many wrong codes. Sign in again with your password.';

/** What to say of a refused code: how many tries are left before the sign-in starts over. */
function wrongCodeMessage(error: ApiError): string {
  const left = (error.body.details as { attemptsLeft?: number } | undefined)?.attemptsLeft;
  const tries = left === 1 ? '1 more try' : `${left} more tries`;
  return left === undefined
    ? error.message
    : `That code is not right. ${tries} before you start over.`;
}

/**
 * A login's second step (after 401 MFA_REQUIRED): a code of the authenticator app, or one of
 * the recovery codes, for `POST /v1/auth/mfa/verify`.
 */
export function MfaStep({ challenge, onRestart, extra }: MfaStepProps) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [wrong, setWrong] = useState<string>();
  const { busy, error, run } = useSubmit();

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    setWrong(undefined);
    void run(async () => {
      const proof = recovery ? { recoveryCode: value.trim() } : { code: value.trim() };
      try {
        const { token, expiresIn, refreshExpiresIn } = await ok(
          api.POST('/v1/auth/mfa/verify', {
            body: { mfaToken: challenge.mfaToken, ...proof, refreshTokenIn: 'cookie' },
          }),
        );
        session.signIn(token, expiresIn, refreshExpiresIn);
      } catch (failure) {
        if (!(failure instanceof ApiError)) throw failure;
        if (failure.code === 'INVALID_MFA_TOKEN') return onRestart(RESTART_MESSAGE);
        if (failure.code !== 'INVALID_MFA_CODE') throw failure;
        setValue('');
        setWrong(wrongCodeMessage(failure));
      }
    });
  };
  const switchTo = (toRecovery: boolean) => {
    setRecovery(toRecovery);
    setValue('');
    setWrong(undefined);
  };
  const { fields, general } = formErrors(error, ['code', 'recoveryCode']);
  const fieldError = wrong ?? fields.code ?? fields.recoveryCode;
  // An account with passkeys only has no code to type.
  const codes = challenge.methods.includes('totp');

  return (
    <main id="main" class="sign-in">
      <PageHeading>Two-step sign-in</PageHeading>
      <ErrorAlert error={general} />
      {extra}
      {codes && (
        <form onSubmit={onSubmit} noValidate>
          {recovery ? (
            // Keyed apart: a reused input would keep the code field's maxLength.
            <Field
              key="recoveryCode"
              name="recoveryCode"
              label="Recovery code"
              hint="One of the codes you saved when you set up the app, such as abcd-efgh-ijkl. Each works once."
              error={fieldError}
            >
              {(control) => (
                <input
                  {...control}
                  autocomplete="off"
                  spellcheck={false}
                  value={value}
                  onInput={(event) => setValue(event.currentTarget.value)}
                />
              )}
            </Field>
          ) : (
            <Field
              key="code"
              name="code"
              label="Code from your authenticator app"
              hint="6 digits"
              error={fieldError}
            >
              {(control) => <TotpCodeInput control={control} value={value} onValue={setValue} />}
            </Field>
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Verify'}
          </button>
        </form>
      )}
      <p class="form-links">
        {codes && (
          <button type="button" class="button-secondary" onClick={() => switchTo(!recovery)}>
            {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
          </button>
        )}
        <button type="button" class="button-secondary" onClick={() => onRestart()}>
          Start over
        </button>
      </p>
    </main>
  );
}
