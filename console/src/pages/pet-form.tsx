import { useEffect, useState } from 'preact/hooks';
import { allowedNextStatuses, PET_STATUSES } from '../../../src/pets/pet-status.js';
import {
  api,
  type CreatePet,
  isEditConflict,
  isNotFound,
  ok,
  okVersioned,
  type Pet,
  type UpdatePet,
  type Versioned,
} from '../api';
import { Link, navigate } from '../router';
import { ErrorAlert, Field, formErrors, PageHeading, useLoad, useSubmit } from '../ui';

interface Values {
  name: string;
  categoryId: string;
  status: Pet['status'];
  age: string;
  breed: string;
  description: string;
  tags: string;
  photoUrls: string;
}

const EMPTY: Values = {
  name: '',
  categoryId: '',
  status: 'available',
  age: '',
  breed: '',
  description: '',
  tags: '',
  photoUrls: '',
};

function valuesOf(pet: Pet): Values {
  return {
    name: pet.name,
    categoryId: String(pet.category.id),
    status: pet.status,
    age: pet.age === undefined ? '' : String(pet.age),
    breed: pet.breed ?? '',
    description: pet.description ?? '',
    tags: pet.tags.map((tag) => tag.name).join(', '),
    photoUrls: pet.photoUrls.join('\n'),
  };
}

const list = (text: string, separator: RegExp) =>
  text
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);

type Body = Record<keyof Values, unknown>;

/**
 * The form as the API's body. Values are passed on as typed, not checked here (a number
 * field holding "abc" sends "abc"): the API's rules are the only ones, and its
 * VALIDATION_ERROR fields are shown next to the inputs.
 */
function bodyOf(values: Values): Body {
  const number = (text: string) => {
    if (text.trim() === '') return null;
    const parsed = Number(text);
    return Number.isNaN(parsed) ? text : parsed;
  };
  const text = (value: string) => (value.trim() === '' ? null : value);
  return {
    name: values.name,
    categoryId: number(values.categoryId),
    status: values.status,
    age: number(values.age),
    breed: text(values.breed),
    description: text(values.description),
    tags: list(values.tags, /,/),
    photoUrls: list(values.photoUrls, /\n/),
  };
}

/**
 * Only what the user changed, so that saving does not undo what happened to the pet since
 * the form opened (a status move, an uploaded photo).
 */
function changesOf(before: Values, after: Values): Partial<Body> {
  const body = bodyOf(after);
  return Object.fromEntries(
    (Object.keys(after) as (keyof Values)[])
      .filter((name) => before[name] !== after[name])
      .map((name) => [name, body[name]]),
  );
}

const FORM_FIELDS: readonly string[] = Object.keys(EMPTY);

const LABELS: Record<keyof Values, string> = {
  name: 'Name',
  categoryId: 'Category',
  status: 'Status',
  age: 'Age',
  breed: 'Breed',
  description: 'Description',
  tags: 'Tags',
  photoUrls: 'Photo URLs',
};

/** The form after someone else saved `theirs`: their values, and the user's own edits. */
function rebase(before: Values, edited: Values, theirs: Values): Values {
  const merged: Record<keyof Values, string> = { ...theirs };
  for (const name of Object.keys(edited) as (keyof Values)[]) {
    if (edited[name] !== before[name]) merged[name] = edited[name];
  }
  return merged as Values;
}

/** What someone else changed between `before` and `theirs`, as "Label: value" lines. */
function othersChanges(before: Values, theirs: Values, pet: Pet): string[] {
  return (Object.keys(theirs) as (keyof Values)[])
    .filter((name) => before[name] !== theirs[name])
    .map((name) => {
      const value = name === 'categoryId' ? pet.category.name : theirs[name];
      return `${LABELS[name]}: ${value.trim() === '' ? '(empty)' : value}`;
    });
}

/** Creates a pet (no id) or edits one. */
export function PetFormPage({ id }: { id?: number }) {
  const existing = useLoad(
    () =>
      id === undefined
        ? Promise.resolve(undefined)
        : okVersioned(api.GET('/v1/pets/{petId}', { params: { path: { petId: id } } })),
    [id],
  );
  if (existing.loading) return <p role="status">Loading…</p>;
  if (existing.error) {
    return (
      <>
        <PageHeading>{isNotFound(existing.error) ? 'Pet not found' : 'Edit a pet'}</PageHeading>
        <ErrorAlert error={existing.error} />
      </>
    );
  }
  return <PetForm pet={existing.data} />;
}

function PetForm({ pet: loaded }: { pet?: Versioned<Pet> }) {
  const categories = useLoad(() => ok(api.GET('/v1/categories')), []);
  // The version the edits apply to: the one loaded, or the one that refused them (412).
  const [base, setBase] = useState(() => loaded && { pet: loaded, values: valuesOf(loaded.data) });
  const initial = base?.values ?? EMPTY;
  const [values, setValues] = useState<Values>(initial);
  const [conflict, setConflict] = useState<string[]>();
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, FORM_FIELDS);
  const pet = base?.pet.data;
  // A pet held by an adoption keeps its status: the adoption moves it.
  const statuses = pet
    ? pet.adoption
      ? [pet.status]
      : allowedNextStatuses(pet.status)
    : PET_STATUSES;

  const set = (name: keyof Values) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    setConflict(undefined);
    void run(async () => {
      // Sent as typed (see bodyOf): the API, not the form, holds the body to its types.
      if (base) {
        const petId = base.pet.data.id;
        const changes = changesOf(initial, values);
        if (Object.keys(changes).length > 0) {
          try {
            await ok(
              api.PUT('/v1/pets/{petId}', {
                params: { path: { petId }, header: { 'If-Match': base.pet.etag } },
                body: changes as UpdatePet,
              }),
            );
          } catch (failure) {
            if (!isEditConflict(failure)) throw failure;
            // Someone else saved first: show their values, keep the user's edits, and let
            // the user save again on top of the version now shown.
            const current = await okVersioned(
              api.GET('/v1/pets/{petId}', { params: { path: { petId } } }),
            );
            const theirs = valuesOf(current.data);
            setValues(rebase(initial, values, theirs));
            setBase({ pet: current, values: theirs });
            setConflict(othersChanges(initial, theirs, current.data));
            return;
          }
        }
        navigate(`/pets/${petId}`, { replace: true });
      } else {
        const created = await ok(api.POST('/v1/pets', { body: bodyOf(values) as CreatePet }));
        navigate(`/pets/${created.id}`, { replace: true });
      }
    });
  };
  // Take the user to the first field the API refused.
  useEffect(() => {
    document.querySelector<HTMLElement>('.pet-form [aria-invalid="true"]')?.focus();
  }, [error]);

  return (
    <>
      <PageHeading>{pet ? `Edit ${pet.name}` : 'Add a pet'}</PageHeading>
      <form class="pet-form" onSubmit={onSubmit} noValidate>
        {conflict && (
          <div class="alert alert-error" role="alert">
            <p>
              Someone else changed this pet while you were editing it. Your changes are not saved
              yet. The form now shows their version, with your edits kept:
            </p>
            <ul>
              {conflict.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            <p>Check the form and save again.</p>
          </div>
        )}
        {Object.keys(fields).length > 0 ? (
          <p class="alert alert-error" role="alert">
            Some fields need attention: see the messages below them.
          </p>
        ) : (
          <ErrorAlert error={general ?? categories.error} />
        )}
        <Field name="name" label="Name" error={fields.name}>
          {(control) => <input {...control} value={values.name} onInput={set('name')} />}
        </Field>
        <Field name="categoryId" label="Category" error={fields.categoryId}>
          {(control) => (
            <select {...control} value={values.categoryId} onChange={set('categoryId')}>
              <option value="">Choose a category</option>
              {categories.data?.categories.map((category) => (
                <option key={category.id} value={String(category.id)}>
                  {category.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          name="status"
          label="Status"
          hint={
            pet?.adoption
              ? 'Held for an adoption: its status changes through the adoption.'
              : pet
                ? 'Only the moves the status rules allow are offered.'
                : undefined
          }
          error={fields.status}
        >
          {(control) => (
            <select {...control} value={values.status} onChange={set('status')}>
              {statuses.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="age" label="Age in years (optional)" error={fields.age}>
          {(control) => (
            <input {...control} inputMode="numeric" value={values.age} onInput={set('age')} />
          )}
        </Field>
        <Field name="breed" label="Breed (optional)" error={fields.breed}>
          {(control) => <input {...control} value={values.breed} onInput={set('breed')} />}
        </Field>
        <Field name="description" label="Description (optional)" error={fields.description}>
          {(control) => (
            <textarea
              {...control}
              rows={4}
              value={values.description}
              onInput={set('description')}
            />
          )}
        </Field>
        <Field
          name="tags"
          label="Tags (optional)"
          hint="Separate tags with commas."
          error={fields.tags}
        >
          {(control) => <input {...control} value={values.tags} onInput={set('tags')} />}
        </Field>
        <Field
          name="photoUrls"
          label="Photo URLs (optional)"
          hint="One http or https URL per line. Uploaded photos are added here by themselves."
          error={fields.photoUrls}
        >
          {(control) => (
            <textarea {...control} rows={3} value={values.photoUrls} onInput={set('photoUrls')} />
          )}
        </Field>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {pet ? 'Save changes' : 'Add pet'}
          </button>
          <Link class="button button-secondary" href={pet ? `/pets/${pet.id}` : '/pets'}>
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
