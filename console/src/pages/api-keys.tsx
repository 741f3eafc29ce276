import { useState } from 'preact/hooks';
import { api, type ApiKey, type CreatedApiKey, ok } from '../api';
import {
  ConfirmDialog,
  ErrorAlert,
  Field,
  formatDate,
  formErrors,
  PageHeading,
  ShownOnce,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

type Mode = ApiKey['mode'];

// A user holds at most API_KEYS_PER_USER keys, which the service bounds to 100: one page.
const ALL_KEYS = { limit: 100 };

export function ApiKeysPage() {
  const keys = useLoad(
    async () => (await ok(api.GET('/v1/api-keys', { params: { query: ALL_KEYS } }))).apiKeys,
    [],
  );
  const [created, setCreated] = useState<CreatedApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [announcement, announce] = useAnnouncement();
  const revoke = useSubmit();

  const onCreated = (key: CreatedApiKey) => {
    setCreated(key);
    // Listed newest first, as the API lists them; the full key stays out of the list.
    const { key: shownOnce, ...listed } = key;
    keys.set((data) => [listed, ...(data ?? [])]);
  };
  const confirmRevoke = (key: ApiKey) => {
    setRevoking(undefined);
    void revoke.run(async () => {
      await ok(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } }));
      keys.set((data) => (data ?? []).filter(({ id }) => id !== key.id));
      announce(`Key “${key.name}” revoked.`);
      if (created?.id === key.id) setCreated(undefined);
    });
  };

  return (
    <>
      <PageHeading>API keys</PageHeading>
      <p>
        An API key lets a program call the API as you, with your role. Send it in the{' '}
        <code>X-API-Key</code> header. Keys cannot manage other keys.
      </p>
      {created ? (
        <NewKey apiKey={created} onDone={() => setCreated(undefined)} />
      ) : (
        <CreateKeyForm onCreated={onCreated} />
      )}

      <h2>Your keys</h2>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={keys.error ?? revoke.error} />
      {keys.data && keys.data.length === 0 && <p>You have no API keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Mode</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id}>
                <th scope="row" data-label="Name">
                  {key.name}
                </th>
                <td data-label="Mode">{key.mode}</td>
                <td data-label="Prefix">
                  <code>{key.prefix}…</code>
                </td>
                <td data-label="Created">{formatDate(key.createdAt)}</td>
                <td data-label="Last used">{formatDate(key.lastUsedAt)}</td>
                <td>
                  <button
                    type="button"
                    class="button-danger"
                    aria-label={`Revoke ${key.name}`}
                    disabled={revoke.busy}
                    onClick={() => setRevoking(key)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke key"
          onConfirm={() => confirmRevoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        >
          <p>Programs using this key will be refused at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [mode, setMode] = useState<Mode>('live');
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['name', 'mode']);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      // Sent without an Idempotency-Key, so never a replay: the key is there.
      onCreated((await ok(api.POST('/v1/api-keys', { body: { name, mode } }))) as CreatedApiKey);
      setName('');
    });
  };

  return (
    <form class="panel" onSubmit={onSubmit} noValidate>
      <h2>Create a key</h2>
      <ErrorAlert error={general} />
      <Field
        name="name"
        label="Name"
        hint="What uses the key, e.g. “Shop front”."
        error={fields.name}
      >
        {(control) => (
          <input
            {...control}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <fieldset class={fields.mode ? 'field field-invalid' : 'field'}>
        <legend>Mode</legend>
        {(['live', 'test'] as const).map((value) => (
          <label class="choice" key={value}>
            <input
              type="radio"
              name="mode"
              value={value}
              checked={mode === value}
              onChange={() => setMode(value)}
            />
            {value === 'live' ? 'Live (pk_live_)' : 'Test (pk_test_)'}
          </label>
        ))}
        {fields.mode && <p class="field-error">{fields.mode}</p>}
      </fieldset>
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}

/** The only time the full key is shown. */
function NewKey({ apiKey, onDone }: { apiKey: CreatedApiKey; onDone: () => void }) {
  return (
    <ShownOnce
      id="new-key"
      title={`Your new key “${apiKey.name}”`}
      label="API key"
      value={apiKey.key}
      doneLabel="I have copied the key"
      onDone={onDone}
    >
      <strong>Copy this key now. It will not be shown again.</strong> Only a fingerprint of it is
      kept; if you lose it, revoke it and create another.
    </ShownOnce>
  );
}
