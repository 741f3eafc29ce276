import { useEffect, useRef, useState } from 'preact/hooks';
import type { Webhook } from '../api';
import { ErrorAlert, Field, formErrors, StatusMessage, useAnnouncement, useSubmit } from '../ui';

type WebhookEventType = Webhook['events'][number];

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
  description: string;
}

export const NO_WEBHOOK: WebhookValues = { url: '', events: [], description: '' };

const FIELDS = ['url', 'events', 'description'];

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

/** The subscription's URL, event types and description, for creating and for editing. */
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

  const eventsError = fields.events && 'field-events-error';
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
