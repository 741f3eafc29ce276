import { useRef, useState } from 'preact/hooks';
import { type Adoption, api, ok, type Pet } from '../api';
import { type Session } from '../session';
import { ErrorAlert, Field, formErrors, StatusMessage, useAnnouncement, useSubmit } from '../ui';
import { AdoptionList } from './adoption-list';
import { AdoptionStatusBadge, HoldCountdown } from './adoption-moves';

interface PetAdoptionsProps {
  pet: Pet;
  who: Session;
  /** The pet's status moved with an adoption: the page reads the pet again. */
  onPetChanged: () => void;
}

/**
 * The pet's adoptions: the open one and the past ones (staff see everyone's, a customer its
 * own), and for a customer on an available pet the request form.
 */
export function PetAdoptions({ pet, who, onPetChanged }: PetAdoptionsProps) {
  const customer = who.role === 'customer';
  const heading = useRef<HTMLHeadingElement>(null);
  // Said here: the form that asked goes away once the pet is held.
  const [announcement, announce] = useAnnouncement();
  const [requests, setRequests] = useState(0);
  return (
    <section aria-labelledby="adoptions-title">
      <h2 id="adoptions-title" ref={heading} tabIndex={-1}>
        Adoption
      </h2>
      <StatusMessage>{announcement}</StatusMessage>
      {pet.adoption && (
        <p>
          An adoption is in progress: <AdoptionStatusBadge status={pet.adoption.status} />.
          {pet.adoption.holdExpiresAt && (
            <>
              {' '}
              <HoldCountdown until={pet.adoption.holdExpiresAt} />.
            </>
          )}
        </p>
      )}
      {customer && pet.status === 'available' && (
        <RequestForm
          petId={pet.id}
          onRequested={(requested) => {
            announce(
              `Adoption requested: ${requested.pet.name} is held for you while staff decide.`,
            );
            heading.current?.focus();
            setRequests((count) => count + 1);
            onPetChanged();
          }}
        />
      )}
      {/* Read again after a request, which adds a row; a move replaces its own row. */}
      <AdoptionList
        key={requests}
        query={{ petId: pet.id }}
        who={who}
        hide="pet"
        onMoved={onPetChanged}
        empty={customer ? 'You have not asked to adopt this pet.' : 'No adoptions of this pet yet.'}
        caption={customer ? 'Your adoptions of this pet' : 'Adoptions of this pet, newest first'}
      />
    </section>
  );
}

interface RequestFormProps {
  petId: number;
  onRequested: (adoption: Adoption) => void;
}

function RequestForm({ petId, onRequested }: RequestFormProps) {
  const form = useRef<HTMLFormElement>(null);
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['message']);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const message = (new FormData(form.current!).get('message') as string).trim();
    void run(async () => {
      onRequested(
        await ok(api.POST('/v1/adoptions', { body: { petId, ...(message ? { message } : {}) } })),
      );
    });
  };

  return (
    <form ref={form} class="panel" onSubmit={onSubmit} noValidate aria-labelledby="request-title">
      <h3 id="request-title">Request adoption</h3>
      <p>The pet is held for you while staff look at your request.</p>
      <ErrorAlert error={general} />
      <Field
        name="message"
        label="Message for the staff (optional)"
        hint="Up to 1000 characters: your home, other pets, when you could collect."
        error={fields.message}
      >
        {(control) => <textarea {...control} rows={3} />}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Requesting…' : 'Request adoption'}
      </button>
    </form>
  );
}
