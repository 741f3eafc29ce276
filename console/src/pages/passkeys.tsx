import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { useState } from 'preact/hooks';
import { api, ApiError, ok, type Passkey } from '../api';
import { session } from '../session';
import { RESTART_MESSAGE } from './mfa-step';
import {
  ConfirmDialog,
  ErrorAlert,
  Field,
  formatDate,
  formErrors,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

/*
 * Passkeys (docs/identity.md, Passkeys): the account's list with rename, remove and "Add a
 * passkey", and the sign-in page's "Sign in with a passkey". The options the service answers
 * go to the browser's WebAuthn calls as they are, and what those give back to the service.
 */

/** An assertion of one of the caller's passkeys, the proof that removing a factor asks for. */
async function passkeyProof() {
  const { options } = await ok(api.POST('/v1/auth/passkeys/proof-options'));
  return startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
}

function PasskeyName({
  passkey,
  onRenamed,
}: {
  passkey: Passkey;
  onRenamed: (p: Passkey) => void;
}) {
  const [name, setName] = useState(passkey.name);
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['name']);
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      onRenamed(
        await ok(
          api.PATCH('/v1/auth/passkeys/{id}', {
            params: { path: { id: passkey.id } },
            body: { name },
          }),
        ),
      );
    });
  };
  return (
    <form onSubmit={onSubmit} noValidate>
      <ErrorAlert error={general} />
      <Field name={`passkey-${passkey.id}-name`} label="Name" error={fields.name}>
        {(control) => (
          <input
            {...control}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="button-secondary" disabled={busy || name === passkey.name}>
        Rename<span class="visually-hidden"> {passkey.name}</span>
      </button>
    </form>
  );
}

/**
 * The Security page's passkeys: list, rename, remove, add. `onAdded` tells the page, which
 * releases an account held to enrolment once it has a factor.
 */
export function PasskeysSection({ onAdded }: { onAdded: () => void }) {
  const passkeys = useLoad(async () => (await ok(api.GET('/v1/auth/passkeys'))).passkeys, []);
  const [removing, setRemoving] = useState<Passkey>();
  const [announcement, announce] = useAnnouncement();
  const [name, setName] = useState('');
  const submit = useSubmit();

  const add = (event: SubmitEvent) => {
    event.preventDefault();
    void submit.run(async () => {
      const { options } = await ok(api.POST('/v1/auth/passkeys/registration'));
      const credential = await startRegistration({
        optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
      });
      const added = await ok(
        api.POST('/v1/auth/passkeys', {
          body: { ...(name.trim() && { name: name.trim() }), credential: { ...credential } },
        }),
      );
      passkeys.set((data) => [...(data ?? []), added]);
      setName('');
      announce(`Passkey “${added.name}” added.`);
      onAdded();
    });
  };

  const remove = (passkey: Passkey) => {
    setRemoving(undefined);
    void submit.run(async () => {
      const proof = await passkeyProof();
      await ok(
        api.DELETE('/v1/auth/passkeys/{id}', {
          params: { path: { id: passkey.id } },
          body: { passkey: { ...proof } },
        }),
      );
      passkeys.set((data) => (data ?? []).filter(({ id }) => id !== passkey.id));
      announce(`Passkey “${passkey.name}” removed.`);
    });
  };

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>
        A passkey signs you in without a password, or as the second step after it. Removing one asks
        for one of your passkeys first.
      </p>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={passkeys.error ?? submit.error} />
      {passkeys.loading && !passkeys.data && <p role="status">Loading passkeys…</p>}
      {passkeys.data && passkeys.data.length === 0 && <p>You have no passkey yet.</p>}
      {passkeys.data && passkeys.data.length > 0 && (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Passkey</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">Synced</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {passkeys.data.map((passkey) => (
              <tr key={passkey.id}>
                <th scope="row" data-label="Passkey">
                  <PasskeyName
                    passkey={passkey}
                    onRenamed={(renamed) => {
                      passkeys.set((data) =>
                        (data ?? []).map((p) => (p.id === renamed.id ? renamed : p)),
                      );
                      announce(`Passkey renamed to “${renamed.name}”.`);
                    }}
                  />
                </th>
                <td data-label="Added">{formatDate(passkey.createdAt)}</td>
                <td data-label="Last used">{formatDate(passkey.lastUsedAt)}</td>
                <td data-label="Synced">{passkey.backedUp ? 'Yes' : 'No'}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="button-danger"
                    disabled={submit.busy}
                    onClick={() => setRemoving(passkey)}
                  >
                    Remove<span class="visually-hidden"> {passkey.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={add} noValidate>
        <Field name="passkey-name" label="Name of the new passkey (optional)">
          {(control) => (
            <input
              {...control}
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={submit.busy}>
          Add a passkey
        </button>
      </form>
      {removing && (
        <ConfirmDialog
          title="Remove this passkey?"
          confirmLabel="Remove"
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => remove(removing)}
        >
          <p>
            “{removing.name}” will no longer sign you in. Your browser asks for a passkey first.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The sign-in page's way in without a password: any passkey of this service. */
export function PasskeySignIn() {
  const { busy, error, run } = useSubmit();
  const signIn = () =>
    void run(async () => {
      const { options } = await ok(api.POST('/v1/auth/passkeys/login-options'));
      const credential = await startAuthentication({
        optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
      });
      const { token, expiresIn, refreshExpiresIn } = await ok(
        // The refresh token goes into an HttpOnly cookie, as at the password's sign-in.
        api.POST('/v1/auth/passkeys/login', {
          body: { credential: { ...credential }, refreshTokenIn: 'cookie' },
        }),
      );
      session.signIn(token, expiresIn, refreshExpiresIn);
    });
  return (
    <div>
      <ErrorAlert error={error} />
      <button type="button" class="button-secondary" disabled={busy} onClick={signIn}>
        {busy ? 'Signing in…' : 'Sign in with a passkey'}
      </button>
    </div>
  );
}

/**
 * A login's second step with a passkey (MFA_REQUIRED's methods name one): an assertion of
 * one of the account's passkeys for `POST /v1/auth/mfa/verify`.
 */
export function PasskeyStep({
  mfaToken,
  onRestart,
}: {
  mfaToken: string;
  onRestart: (message: string) => void;
}) {
  const { busy, error, run } = useSubmit();
  const verify = () =>
    void run(async () => {
      try {
        const { options } = await ok(
          api.POST('/v1/auth/mfa/passkey-options', { body: { mfaToken } }),
        );
        const passkey = await startAuthentication({
          optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
        });
        const { token, expiresIn, refreshExpiresIn } = await ok(
          api.POST('/v1/auth/mfa/verify', {
            body: { mfaToken, passkey: { ...passkey }, refreshTokenIn: 'cookie' },
          }),
        );
        session.signIn(token, expiresIn, refreshExpiresIn);
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === 'INVALID_MFA_TOKEN') {
          return onRestart(RESTART_MESSAGE);
        }
        throw failure;
      }
    });
  return (
    <div>
      <ErrorAlert error={error} />
      <button type="button" disabled={busy} onClick={verify}>
        {busy ? 'Checking…' : 'Use a passkey'}
      </button>
    </div>
  );
}
