import { useState } from 'preact/hooks';
import {
  API_KEY_SCOPES,
  ROLE_SCOPES,
  type ApiKeyScope,
} from '../../../src/common/types/api-key-scope.js';
import { api, type ApiKey, type CreatedApiKey, ok } from '../api';
import { useSession, type Role } from '../session';
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

// POST /v1/api-keys/{id}/roll: how long the old key keeps working (docs/identity.md).
const DEFAULT_GRACE_HOURS = 24;
const MAX_GRACE_HOURS = 168;
// The service refuses an end more than 366 days ahead; the picker offers no later day.
const MAX_LIFETIME_DAYS = 366;

/** The scopes a key of `role` may hold, in the contract's order; "Read only" is their reads. */
const scopesOf = (role: Role): readonly ApiKeyScope[] => ROLE_SCOPES[role];
const readOnly = (scopes: readonly ApiKeyScope[]) => scopes.filter((s) => s.endsWith(':read'));

export function ApiKeysPage() {
  const keys = useLoad(
    async () => (await ok(api.GET('/v1/api-keys', { params: { query: ALL_KEYS } }))).apiKeys,
    [],
  );
  const [created, setCreated] = useState<CreatedApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [rolling, setRolling] = useState<ApiKey>();
  const [graceHours, setGraceHours] = useState(String(DEFAULT_GRACE_HOURS));
  const [announcement, announce] = useAnnouncement();
  const revoke = useSubmit();
  const roll = useSubmit();
  const role = useSession()?.role ?? 'customer';

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
  const openRoll = (key: ApiKey) => {
    setGraceHours(String(DEFAULT_GRACE_HOURS));
    setRolling(key);
  };
  const confirmRoll = (key: ApiKey) => {
    setRolling(undefined);
    void roll.run(async () => {
      const rolled = (await ok(
        api.POST('/v1/api-keys/{id}/roll', {
          params: { path: { id: key.id } },
          // Left empty: the service's default grace.
          body: graceHours.trim() === '' ? {} : { expiresInHours: Number(graceHours) },
        }),
      )) as CreatedApiKey;
      setCreated(rolled);
      // The old key's end moved: the list is read again, the new key at its top.
      keys.reload();
      announce(`Key “${key.name}” rolled.`);
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
        <CreateKeyForm role={role} onCreated={onCreated} />
      )}

      <h2>Your keys</h2>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={keys.error ?? revoke.error ?? roll.error} />
      {keys.data && keys.data.length === 0 && <p>You have no API keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Mode</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
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
                <td data-label="Scopes">
                  <ScopeList scopes={key.scopes} role={role} />
                </td>
                <td data-label="Created">{formatDate(key.createdAt)}</td>
                <td data-label="Expires">
                  {key.expiresAt ? formatDate(key.expiresAt) : 'Never'}
                  {key.expiringSoon && <span class="badge badge-expiring">expires soon</span>}
                </td>
                <td data-label="Last used">{formatDate(key.lastUsedAt)}</td>
                <td class="key-actions">
                  <button
                    type="button"
                    class="button-secondary"
                    aria-label={`Roll ${key.name}`}
                    disabled={roll.busy}
                    onClick={() => openRoll(key)}
                  >
                    Roll
                  </button>
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
      {rolling && (
        <ConfirmDialog
          title={`Roll “${rolling.name}”?`}
          confirmLabel="Roll key"
          onConfirm={() => confirmRoll(rolling)}
          onCancel={() => setRolling(undefined)}
        >
          <p>
            A new key with the same name, mode and scopes is made and shown once. The old key keeps
            working for the grace period, so that programs can move over.
          </p>
          <Field
            name="expiresInHours"
            label="Grace period (hours)"
            hint={`0 stops the old key at once; at most ${MAX_GRACE_HOURS}.`}
          >
            {(control) => (
              <input
                {...control}
                type="number"
                min={0}
                max={MAX_GRACE_HOURS}
                step={1}
                value={graceHours}
                onInput={(event) => setGraceHours(event.currentTarget.value)}
              />
            )}
          </Field>
        </ConfirmDialog>
      )}
    </>
  );
}

/** A key's scopes, or "all of your role's" when it has every one the owner's role allows. */
function ScopeList({ scopes, role }: { scopes: ApiKey['scopes']; role: Role }) {
  if (scopes.length === scopesOf(role).length) return <>All ({scopes.length})</>;
  return (
    <ul class="scope-list">
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code>
        </li>
      ))}
    </ul>
  );
}

/** The last day the date picker offers, as YYYY-MM-DD on this machine's calendar. */
function dayInput(daysAhead: number): string {
  const day = new Date(Date.now() + daysAhead * 86_400_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

interface CreateKeyFormProps {
  role: Role;
  onCreated: (key: CreatedApiKey) => void;
}

function CreateKeyForm({ role, onCreated }: CreateKeyFormProps) {
  const allowed = scopesOf(role);
  const [name, setName] = useState('');
  const [mode, setMode] = useState<Mode>('live');
  const [scopes, setScopes] = useState<readonly ApiKeyScope[]>(allowed);
  const [expiresOn, setExpiresOn] = useState('');
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['name', 'mode', 'scopes', 'expiresAt']);

  const toggle = (scope: ApiKeyScope, on: boolean) =>
    setScopes((current) => API_KEY_SCOPES.filter((s) => (s === scope ? on : current.includes(s))));

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      // The end of the chosen day on this machine's calendar.
      const expiresAt = expiresOn ? new Date(`${expiresOn}T23:59:59`).toISOString() : undefined;
      const body = { name, mode, scopes: [...scopes], ...(expiresAt && { expiresAt }) };
      // Sent without an Idempotency-Key, so never a replay: the key is there.
      onCreated((await ok(api.POST('/v1/api-keys', { body }))) as CreatedApiKey);
      setName('');
      setScopes(allowed);
      setExpiresOn('');
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
      <fieldset
        class={fields.scopes ? 'field field-invalid' : 'field'}
        aria-describedby={fields.scopes ? 'field-scopes-error' : 'field-scopes-hint'}
      >
        <legend>Scopes</legend>
        <p id="field-scopes-hint" class="hint">
          What the key may do; only what your role allows is offered.
        </p>
        <div class="scope-presets">
          <button
            type="button"
            class="button-secondary"
            onClick={() => setScopes(readOnly(allowed))}
          >
            Read only
          </button>
          <button type="button" class="button-secondary" onClick={() => setScopes(allowed)}>
            Full
          </button>
        </div>
        <div class="scope-choices">
          {allowed.map((scope) => (
            <label class="choice" key={scope}>
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />
              <code>{scope}</code>
            </label>
          ))}
        </div>
        {fields.scopes && (
          <p id="field-scopes-error" class="field-error">
            {fields.scopes}
          </p>
        )}
      </fieldset>
      <Field
        name="expiresAt"
        label="Expires on (optional)"
        hint="The key stops working at the end of that day. Leave empty for a key that never expires."
        error={fields.expiresAt}
      >
        {(control) => (
          <input
            {...control}
            type="date"
            min={dayInput(0)}
            max={dayInput(MAX_LIFETIME_DAYS - 1)}
            value={expiresOn}
            onInput={(event) => setExpiresOn(event.currentTarget.value)}
          />
        )}
      </Field>
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
