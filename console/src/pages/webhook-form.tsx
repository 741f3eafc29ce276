import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Webhook } from '../api';
import {
  ErrorAlert,
  Field,
  formErrors,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

type WebhookEventType = Webhook['events'][number];
export type WebhookFilters = NonNullable<Webhook['filters']>;
type PetStatus = NonNullable<WebhookFilters['statuses']>[number];

const PET_STATUSES: PetStatus[] = ['available', 'pending', 'sold'];

/** What each event type reports, beside its name in the checkboxes (every type: the client's). */
const EVENT_TYPE_HINTS: Record<WebhookEventType, string> = {
  'pet.created': 'a pet is added',
  'pet.updated': 'a pet’s details are edited',
  'pet.status_changed': 'a pet becomes available, pending or sold',
  'pet.image_added': 'a photo is uploaded',
  'pet.deleted': 'a pet is deleted',
  'adoption.requested': 'an adoption is requested',
  'adoption.approved': 'staff approve an adoption',
  'adoption.completed': 'an adoption is completed',
  'adoption.rejected': 'staff reject an adoption',
  'adoption.cancelled': 'an adoption is cancelled',
  'adoption.expired': 'an adoption’s hold runs out',
  'adoption.returned': 'an adopted pet is returned',
};
const WEBHOOK_EVENT_TYPES = Object.keys(EVENT_TYPE_HINTS) as WebhookEventType[];

export interface WebhookValues {
  url: string;
  events: WebhookEventType[];
  /** The pet filters: none chosen in a group is no filter of that kind. */
  categoryIds: number[];
  statuses: PetStatus[];
  /** Tag names, separated by commas. */
  tags: string;
  description: string;
}

export const NO_WEBHOOK: WebhookValues = {
  url: '',
  events: [],
  categoryIds: [],
  statuses: [],
  tags: '',
  description: '',
};

const FIELDS = [
  'url',
  'events',
  'filters.categoryIds',
  'filters.statuses',
  'filters.tags',
  'description',
];

/** The form's values of a subscription's filters. */
export function filterValuesOf(filters: Webhook['filters']) {
  return {
    categoryIds: [...(filters?.categoryIds ?? [])],
    statuses: [...(filters?.statuses ?? [])],
    tags: (filters?.tags ?? []).join(', '),
  };
}

/** The filters the form's values ask for, or null for none (every pet event). */
export function filtersOf(values: WebhookValues): WebhookFilters | null {
  const tags = values.tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  const filters: WebhookFilters = {
    ...(values.categoryIds.length > 0 && { categoryIds: values.categoryIds }),
    ...(values.statuses.length > 0 && { statuses: values.statuses }),
    ...(tags.length > 0 && { tags }),
  };
  return Object.keys(filters).length > 0 ? filters : null;
}

interface WebhookFormProps {
  title: string;
  submitLabel: string;
  /** What the form shows first. */
  initial: WebhookValues;
  /** Sends the values; a refusal is shown in the form. Resolves to what the form shows next. */
  onSave: (values: WebhookValues) => Promise<WebhookValues | 'unchanged'>;
  /** Said next to the button once saved, if the form stays. */
  savedMessage?: string;
}

/**
 * The subscription's URL, event types, pet filters and description, for creating and for
 * editing.
 */
export function WebhookForm({
  title,
  submitLabel,
  initial,
  onSave,
  savedMessage,
}: WebhookFormProps) {
  const [values, setValues] = useState(initial);
  const { busy, error, run } = useSubmit();
  const [confirmation, confirm] = useAnnouncement();
  const { fields, general } = formErrors(error, FIELDS);
  const form = useRef<HTMLFormElement>(null);
  const categories = useLoad(() => ok(api.GET('/v1/categories')), []);

  // Take the user to the first field the API refused.
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);

  const toggle = (type: WebhookEventType, on: boolean) =>
    setValues({
      ...values,
      // Kept in the order of the checkboxes.
      events: WEBHOOK_EVENT_TYPES.filter((t) => (t === type ? on : values.events.includes(t))),
    });

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    confirm('');
    void run(async () => {
      const next = await onSave(values);
      if (next === 'unchanged') return confirm('Nothing was changed.');
      setValues(next);
      if (savedMessage) confirm(savedMessage);
    });
  };

  const toggleCategory = (id: number, on: boolean) =>
    setValues({
      ...values,
      categoryIds: on
        ? [...values.categoryIds, id]
        : values.categoryIds.filter((chosen) => chosen !== id),
    });
  const toggleStatus = (status: PetStatus, on: boolean) =>
    setValues({
      ...values,
      statuses: PET_STATUSES.filter((s) => (s === status ? on : values.statuses.includes(s))),
    });

  const eventsError = fields.events && 'field-events-error';
  const categoriesError = fields['filters.categoryIds'];
  const statusesError = fields['filters.statuses'];
  return (
    <form
      ref={form}
      class="panel"
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="webhook-form-title"
    >
      <h2 id="webhook-form-title">{title}</h2>
      <ErrorAlert error={general} />
      <Field
        name="url"
        label="URL"
        hint="Where the events are posted: an http or https address the service can reach."
        error={fields.url}
      >
        {(control) => (
          <input
            {...control}
            type="url"
            inputMode="url"
            autocomplete="off"
            spellcheck={false}
            value={values.url}
            onInput={(event) => setValues({ ...values, url: event.currentTarget.value })}
          />
        )}
      </Field>
      <fieldset class={fields.events ? 'field field-invalid' : 'field'}>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label class="choice" key={type}>
            <input
              type="checkbox"
              name="events"
              value={type}
              checked={values.events.includes(type)}
              aria-invalid={fields.events ? true : undefined}
              aria-describedby={eventsError}
              onChange={(event) => toggle(type, event.currentTarget.checked)}
            />
            <span>
              <code>{type}</code>: {EVENT_TYPE_HINTS[type]}
            </span>
          </label>
        ))}
        {fields.events && (
          <p id="field-events-error" class="field-error">
            {fields.events}
          </p>
        )}
      </fieldset>
      <fieldset class="field">
        <legend>Only pets (optional)</legend>
        <p class="hint">
          Pet events are sent only for pets that match every filter chosen; adoption events are not
          filtered.
        </p>
        <fieldset class={categoriesError ? 'field field-invalid' : 'field'}>
          <legend>In these categories</legend>
          <ErrorAlert error={categories.error} />
          {categories.data?.categories.map((category) => (
            <label class="choice" key={category.id}>
              <input
                type="checkbox"
                name="categoryIds"
                value={category.id}
                checked={values.categoryIds.includes(category.id)}
                aria-invalid={categoriesError ? true : undefined}
                onChange={(event) => toggleCategory(category.id, event.currentTarget.checked)}
              />
              <span>{category.name}</span>
            </label>
          ))}
          {categoriesError && <p class="field-error">{categoriesError}</p>}
        </fieldset>
        <fieldset class={statusesError ? 'field field-invalid' : 'field'}>
          <legend>With these statuses</legend>
          {PET_STATUSES.map((status) => (
            <label class="choice" key={status}>
              <input
                type="checkbox"
                name="statuses"
                value={status}
                checked={values.statuses.includes(status)}
                aria-invalid={statusesError ? true : undefined}
                onChange={(event) => toggleStatus(status, event.currentTarget.checked)}
              />
              <span>{status}</span>
            </label>
          ))}
          {statusesError && <p class="field-error">{statusesError}</p>}
        </fieldset>
        <Field
          name="tags"
          label="With any of these tags"
          hint="Tag names separated by commas; upper and lower case alike."
          error={fields['filters.tags']}
        >
          {(control) => (
            <input
              {...control}
              autocomplete="off"
              value={values.tags}
              onInput={(event) => setValues({ ...values, tags: event.currentTarget.value })}
            />
          )}
        </Field>
      </fieldset>
      <Field name="description" label="Description (optional)" error={fields.description}>
        {(control) => (
          <input
            {...control}
            value={values.description}
            onInput={(event) => setValues({ ...values, description: event.currentTarget.value })}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
      <StatusMessage>{confirmation}</StatusMessage>
    </form>
  );
}
