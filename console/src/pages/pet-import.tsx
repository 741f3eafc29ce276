import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, messageOf, ok, type PetImport, startPetImport } from '../api';
import { Link, navigate, useLocation } from '../router';
import {
  ErrorAlert,
  Field,
  formErrors,
  PageHeading,
  StaffOnly,
  StatusMessage,
  useSubmit,
} from '../ui';

type Mode = PetImport['mode'];
type Status = PetImport['status'];

const FINISHED: Status[] = ['succeeded', 'failed', 'cancelled'];
const POLL_INTERVAL_MS = 1000;
// The API answers the first 1,000 errors (docs/pet-imports.md).
const ERRORS_SHOWN = 1000;

const STATUS_TEXT: Record<Status, string> = {
  queued: 'Queued',
  validating: 'Checking the rows',
  running: 'Applying the rows',
  succeeded: 'Finished',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const COUNTS: { key: keyof PetImport['counts']; label: string }[] = [
  { key: 'rows', label: 'Rows' },
  { key: 'valid', label: 'Valid' },
  { key: 'invalid', label: 'Invalid' },
  { key: 'created', label: 'Created' },
  { key: 'updated', label: 'Updated' },
  { key: 'unchanged', label: 'Unchanged' },
];

// Refusals of the file itself (its size, its type) belong next to the file field.
const FILE_ERRORS: ApiError['code'][] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** Import pets from a file; the import followed is in the address (`?id=`), so a reload keeps it. */
export function PetImportPage() {
  const { query } = useLocation();
  const id = Number.parseInt(query.get('id') ?? '', 10);
  return (
    <StaffOnly title="Import pets" task="import pets">
      {() =>
        Number.isSafeInteger(id) && id > 0 ? <ImportProgress key={id} id={id} /> : <ImportForm />
      }
    </StaffOnly>
  );
}

function ImportForm() {
  const [mode, setMode] = useState<Mode>('create');
  const { busy, error, run } = useSubmit();
  const aboutFile = error instanceof ApiError && FILE_ERRORS.includes(error.code);
  const { fields, general } = formErrors(aboutFile ? undefined : error, ['file', 'mode', 'dryRun']);
  const fileError = aboutFile ? messageOf(error) : fields.file;

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const file = form.get('file');
    void run(async () => {
      const accepted = await startPetImport(file as File, mode, form.get('dryRun') === 'true');
      navigate(`/pets/import?id=${accepted.id}`);
    });
  };

  return (
    <>
      <PageHeading>Import pets</PageHeading>
      <p>
        A CSV file with a header row, or NDJSON (one pet a line), with the columns of the export.
        Every row is checked as a single create; a row with an error is left out and the others are
        applied.
      </p>
      <form class="panel" onSubmit={onSubmit} aria-label="Import pets">
        <ErrorAlert error={general} />
        <Field
          name="file"
          label="File"
          hint="CSV or NDJSON, up to 50 MB and 100,000 rows."
          error={fileError}
        >
          {(control) => (
            <input
              {...control}
              type="file"
              required
              accept=".csv,.ndjson,.jsonl,text/csv,application/x-ndjson"
            />
          )}
        </Field>
        <fieldset class={fields.mode ? 'field field-invalid' : 'field'}>
          <legend>Mode</legend>
          {(['create', 'upsert'] as const).map((value) => (
            <label class="choice" key={value}>
              <input
                type="radio"
                name="mode"
                value={value}
                checked={mode === value}
                onChange={() => setMode(value)}
              />
              {value === 'create'
                ? 'Create: every row is a new pet'
                : 'Upsert: a row updates the pet with its external id, or adds it (each row needs one)'}
            </label>
          ))}
          {fields.mode && <p class="field-error">{fields.mode}</p>}
        </fieldset>
        <div class="field">
          <label class="choice">
            <input type="checkbox" name="dryRun" value="true" />
            Dry run: check and count the rows, change nothing
          </label>
          {fields.dryRun && <p class="field-error">{fields.dryRun}</p>}
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Uploading…' : 'Start'}
        </button>
      </form>
      <p>
        <Link href="/pets">Back to the pets</Link>
      </p>
    </>
  );
}

/** The import as `GET /v1/pets/imports/{id}` answers it, read every second until it ends. */
function useImport(id: number) {
  const [state, setState] = useState<{ data?: PetImport; error?: unknown }>({});
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const data = await ok(
          api.GET('/v1/pets/imports/{importId}', { params: { path: { importId: id } } }),
        );
        if (stopped) return;
        setState({ data });
        if (FINISHED.includes(data.status)) return;
      } catch (error) {
        if (stopped) return;
        setState((previous) => ({ ...previous, error }));
        // No such import (or not the caller's to see): nothing will change by asking again.
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) return;
      }
      timer = setTimeout(() => void poll(), POLL_INTERVAL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, version]);
  return { ...state, refresh: () => setVersion((value) => value + 1) };
}

function ImportProgress({ id }: { id: number }) {
  const current = useImport(id);
  const cancel = useSubmit();
  const data = current.data;

  if (!data) {
    return (
      <>
        <PageHeading>{`Import ${id}`}</PageHeading>
        {current.error === undefined ? (
          <p role="status">Loading…</p>
        ) : (
          <ErrorAlert error={current.error} />
        )}
        <p>
          <Link href="/pets">Back to the pets</Link>
        </p>
      </>
    );
  }

  const finished = FINISHED.includes(data.status);
  const percent = Math.round(data.progress * 100);
  const onCancel = () =>
    void cancel.run(async () => {
      try {
        await ok(api.DELETE('/v1/pets/imports/{importId}', { params: { path: { importId: id } } }));
      } finally {
        // Cancelled or finished meanwhile (409): either way, show it as it is now.
        current.refresh();
      }
    });

  return (
    <>
      <PageHeading>{data.dryRun ? `Import ${id} (dry run)` : `Import ${id}`}</PageHeading>
      <section class="panel" aria-labelledby="import-state-title">
        <h2 id="import-state-title">Mode: {data.mode}</h2>
        <StatusMessage>
          Status: {STATUS_TEXT[data.status]}
          {data.status === 'succeeded' && data.dryRun && ' (dry run: no pet was changed)'}
        </StatusMessage>
        <div class="field progress">
          <label for="import-progress">Progress</label>
          <progress id="import-progress" max={100} value={percent}>
            {percent}%
          </progress>{' '}
          <span>{percent}%</span>
        </div>
        <dl class="details">
          {COUNTS.map(({ key, label }) => (
            <Fragment key={key}>
              <dt>{label}</dt>
              <dd>{data.counts[key]}</dd>
            </Fragment>
          ))}
        </dl>
        <ErrorAlert error={cancel.error ?? current.error} />
        {finished ? (
          <p>
            <Link href="/pets">Go to the pets</Link> ·{' '}
            <Link href="/pets/import">Import another file</Link>
          </p>
        ) : (
          <button type="button" class="button-danger" disabled={cancel.busy} onClick={onCancel}>
            Cancel the import
          </button>
        )}
      </section>
      <ImportErrors errors={data.errors} />
    </>
  );
}

function ImportErrors({ errors }: { errors: PetImport['errors'] }) {
  if (errors.length === 0) return null;
  return (
    <section aria-labelledby="import-errors-title">
      <h2 id="import-errors-title">Errors</h2>
      {errors.length >= ERRORS_SHOWN && (
        <p>The first {ERRORS_SHOWN.toLocaleString()} errors are shown.</p>
      )}
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Field</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error, index) => (
            <tr key={index}>
              <td data-label="Row">{error.row}</td>
              <td data-label="Field">{error.field}</td>
              <td data-label="Message">{error.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
