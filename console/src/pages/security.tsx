import encodeQR from 'qr';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, ok } from '../api';
import { SIGNED_OUT_ENROLLED, SIGNED_OUT_ENROLLED_PASSKEY, session, useSession } from '../session';
import { PasskeysSection } from './passkeys';
import {
  ErrorAlert,
  Field,
  formErrors,
  PageHeading,
  StatusMessage,
  TotpCodeInput,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

interface Enrolment {
  secret: string;
  otpauthUrl: string;
}

/**
 * The setup link as a QR code, drawn here (no image from elsewhere): one square per dark
 * module, with the quiet zone around the symbol that scanners need.
 */
function QrCode({ text }: { text: string }) {
  const modules = encodeQR(text, 'raw', { border: 4 });
  const path = modules
    .flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : '')))
    .join('');
  const size = modules.length;
  return (
    <svg
      class="qr-code"
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label="QR code of the setup key, for your authenticator app"
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}

/** The key in groups of four, as authenticator apps show and ask for it. */
function grouped(secret: string): string {
  return secret.replace(/=+$/, '').replace(/(.{4})(?=.)/g, '$1 ');
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

interface RecoveryCodesProps {
  codes: string[];
  username: string;
  doneLabel: string;
  onDone: () => void;
}

/** The recovery codes, shown this once, with Copy and Download. */
function RecoveryCodes({ codes, username, doneLabel, onDone }: RecoveryCodesProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const [result, announce] = useAnnouncement();
  // The panel replaces the form that had focus: bring the user to the codes and the warning.
  useEffect(() => heading.current?.focus(), []);
  const text = codes.join('\n');

  const copyByHand = () => {
    const range = document.createRange();
    range.selectNodeContents(list.current!);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    announce('Copying is blocked here: the codes are selected, copy them by hand.');
  };
  const copy = () => {
    // The clipboard API exists only on https pages and on localhost.
    if (!navigator.clipboard) return copyByHand();
    navigator.clipboard
      .writeText(text)
      .then(() => announce('Copied to the clipboard.'), copyByHand);
  };

  return (
    <section class="panel panel-warning" aria-labelledby="recovery-title">
      <h3 id="recovery-title" ref={heading} tabIndex={-1}>
        Your recovery codes
      </h3>
      <p class="warning">
        Save these codes now: <strong>you will not see them again.</strong> If you lose your
        authenticator app, each code signs you in once instead of a code from the app.
      </p>
      <ol class="recovery-codes" ref={list}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button
          type="button"
          onClick={() =>
            download(
              'petstore-recovery-codes.txt',
              `Pet store recovery codes for ${username} (each works once)\n\n${text}\n`,
            )
          }
        >
          Download
        </button>
      </div>
      <StatusMessage>{result}</StatusMessage>
      <button type="button" class="button-secondary" onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}

/** Scan or type the new key, then confirm it with the app's first code. */
function EnrolForm({
  enrolment,
  onConfirmed,
  onCancel,
}: {
  enrolment: Enrolment;
  onConfirmed: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const [code, setCode] = useState('');
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['code']);
  const wrong = error instanceof ApiError && error.code === 'INVALID_MFA_CODE';

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      const { recoveryCodes } = await ok(
        api.POST('/v1/auth/mfa/totp/confirm', { body: { code: code.trim() } }),
      );
      // Only a replay of an Idempotency-Key answers without them, and the console sends none.
      onConfirmed(recoveryCodes ?? []);
    });
  };

  return (
    <div class="enrolment">
      <ol class="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          <QrCode text={enrolment.otpauthUrl} />
          <p>
            Or type this key into the app: <code class="secret">{grouped(enrolment.secret)}</code>
          </p>
        </li>
        <li>
          <form onSubmit={onSubmit} noValidate>
            <Field
              name="code"
              label="Enter the 6-digit code the app shows"
              error={fields.code ?? (wrong ? messageOfCode(error) : undefined)}
            >
              {(control) => <TotpCodeInput control={control} value={code} onValue={setCode} />}
            </Field>
            {!wrong && <ErrorAlert error={general} />}
            <div class="actions">
              <button type="submit" disabled={busy}>
                {busy ? 'Checking…' : 'Turn on'}
              </button>
              <button type="button" class="button-secondary" onClick={onCancel}>
                Cancel
              </button>
            </div>
          </form>
        </li>
      </ol>
    </div>
  );
}

function messageOfCode(error: unknown): string {
  return error instanceof ApiError ? `${error.message}.` : '';
}

/** Turning the factor off takes a code of it (or a recovery code), as the API asks. */
function TurnOffForm({ onRemoved }: { onRemoved: () => void }) {
  const [proof, setProof] = useState('');
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['code', 'recoveryCode']);
  const wrong = error instanceof ApiError && error.code === 'INVALID_MFA_CODE';

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      const value = proof.trim();
      await ok(
        api.DELETE('/v1/auth/mfa/totp', {
          body: /^\d{6}$/.test(value) ? { code: value } : { recoveryCode: value },
        }),
      );
      onRemoved();
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Field
        name="proof"
        label="To turn it off, enter a code from your app or a recovery code"
        error={fields.code ?? fields.recoveryCode ?? (wrong ? messageOfCode(error) : undefined)}
      >
        {(control) => (
          <input
            {...control}
            autocomplete="one-time-code"
            spellcheck={false}
            value={proof}
            onInput={(event) => setProof(event.currentTarget.value)}
          />
        )}
      </Field>
      {!wrong && <ErrorAlert error={general} />}
      <button type="submit" class="button-danger" disabled={busy}>
        Turn off
      </button>
    </form>
  );
}

/**
 * Settings → Security: the second factors, the authenticator app (TOTP) and passkeys. An account held to
 * enrolment (403 MFA_ENROLMENT_REQUIRED) sees only this page until it has a factor.
 */
export function SecurityPage() {
  const current = useSession()!;
  const status = useLoad(async () => ok(api.GET('/v1/auth/mfa')), []);
  const [enrolment, setEnrolment] = useState<Enrolment>();
  const [codes, setCodes] = useState<string[]>();
  const [announcement, announce] = useAnnouncement();
  const start = useSubmit();

  const enrol = () =>
    void start.run(async () => {
      const answer = await ok(api.POST('/v1/auth/mfa/totp'));
      setEnrolment({ secret: answer.secret ?? '', otpauthUrl: answer.otpauthUrl ?? '' });
    });
  const confirmed = (recoveryCodes: string[]) => {
    setEnrolment(undefined);
    setCodes(recoveryCodes);
    status.set(() => ({ totp: true }));
  };
  // A passkey is a factor too: as after the recovery codes, without them.
  const passkeyAdded = () => {
    if (current.enrolmentOnly) return session.signOut(SIGNED_OUT_ENROLLED_PASSKEY);
    session.releaseFromEnrolment();
  };
  const saved = () => {
    setCodes(undefined);
    // An enrolment token opens nothing more: the person signs in again, now with a code.
    if (current.enrolmentOnly) return session.signOut(SIGNED_OUT_ENROLLED);
    session.releaseFromEnrolment();
    announce('Two-step sign-in is on.');
    document.querySelector<HTMLElement>('main h1')?.focus();
  };
  const on = status.data?.totp;

  return (
    <>
      <PageHeading>Security</PageHeading>
      {current.heldToEnrolment && (
        <p class="alert alert-info">
          Your account must sign in with a second factor. Set up an authenticator app or add a
          passkey to go on: until then, this is the only page the console can show you.
        </p>
      )}
      <StatusMessage>{announcement}</StatusMessage>
      <section aria-labelledby="totp-title">
        <h2 id="totp-title">Authenticator app</h2>
        <p>
          With an authenticator app (such as Google Authenticator, Microsoft Authenticator or
          1Password), signing in with your password also asks for the 6-digit code the app shows.
        </p>
        {status.loading && !status.data && <p role="status">Loading…</p>}
        <ErrorAlert error={status.error ?? start.error} />
        {status.data && (
          <p>
            Status:{' '}
            <strong class={on ? 'badge badge-available' : 'badge'}>{on ? 'On' : 'Off'}</strong>
          </p>
        )}
        {codes ? (
          <RecoveryCodes
            codes={codes}
            username={current.username}
            doneLabel={
              current.enrolmentOnly
                ? 'I have saved the codes: sign in again'
                : 'I have saved the codes'
            }
            onDone={saved}
          />
        ) : enrolment ? (
          <EnrolForm
            enrolment={enrolment}
            onConfirmed={confirmed}
            onCancel={() => setEnrolment(undefined)}
          />
        ) : on === false ? (
          <button type="button" disabled={start.busy} onClick={enrol}>
            Set up an authenticator app
          </button>
        ) : (
          on && (
            <TurnOffForm
              onRemoved={() => {
                status.set(() => ({ totp: false }));
                announce('Two-step sign-in is off.');
              }}
            />
          )
        )}
      </section>
      <PasskeysSection onAdded={passkeyAdded} />
    </>
  );
}
