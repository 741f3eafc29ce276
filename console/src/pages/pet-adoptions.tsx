import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Adoption,
  api,
  ApiError,
  ok,
  type CreateAdoption,
  type CustomerMatch,
  type Pet,
} from '../api';
import { type Session } from '../session';
import { ErrorAlert, Field, formErrors, StatusMessage, useAnnouncement, useSubmit } from '../ui';
import { AdoptionList } from './adoption-list';
import { AdoptionStatusBadge, HoldCountdown } from './adoption-moves';
import { CustomerPicker } from './customer-picker';

interface PetAdoptionsProps {
  pet: Pet;
  who: Session;
  /** The pet's status moved with an adoption: the page reads the pet again. */
  onPetChanged: () => void;
}

/**
 * The pet's adoptions: the open one and the past ones (staff see everyone's, a customer its
 * own), and on an available pet the request form (staff's names the customer it is for).
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
      {pet.status === 'available' && (
        <RequestForm
          petId={pet.id}
          byStaff={!customer}
          onRequested={(requested) => {
            announce(
              customer
                ? `Adoption requested: ${requested.pet.name} is held for you while staff decide.`
                : `Adoption requested for ${requested.adopter?.username}: ${requested.pet.name} is held for them while staff decide.`,
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
  /** Staff request for a customer, picked by username or address (the API takes its id). */
  byStaff: boolean;
  onRequested: (adoption: Adoption) => void;
}

function RequestForm({ petId, byStaff, onRequested }: RequestFormProps) {
  const form = useRef<HTMLFormElement>(null);
  const { busy, error, run } = useSubmit();
  const [adopter, setAdopter] = useState<CustomerMatch>();
  const [noAdopter, setNoAdopter] = useState(false);
  const { fields, general } = formErrors(error, ['message', 'adopterId']);
  // The limit is the customer's, not the staff member's: said under the field that names them.
  const limit =
    byStaff && error instanceof ApiError && error.code === 'ADOPTION_LIMIT_REACHED'
      ? (error.body.details as { limit?: number } | undefined)?.limit
      : undefined;
  const adopterError = noAdopter
    ? 'Choose the customer from the list: type the start of their username, or their email address.'
    : limit !== undefined
      ? `This customer already has ${limit} adoptions in progress: one of them has to end before they can have another.`
      : fields.adopterId;

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const values = new FormData(form.current!);
    const message = (values.get('message') as string).trim();
    // The form's one check of its own: without adopterId the API would make the request the
    // staff member's.
    const missing = byStaff && adopter === undefined;
    setNoAdopter(missing);
    if (missing) {
      document.getElementById('field-adopterId')?.focus();
      return;
    }
    const body: CreateAdoption = {
      petId,
      ...(adopter ? { adopterId: adopter.id } : {}),
      ...(message ? { message } : {}),
    };
    void run(async () => {
      onRequested(await ok(api.POST('/v1/adoptions', { body })));
    });
  };
  // Take the user to the field the API refused.
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);

  return (
    <form ref={form} class="panel" onSubmit={onSubmit} noValidate aria-labelledby="request-title">
      <h3 id="request-title">{byStaff ? 'Request adoption for a customer' : 'Request adoption'}</h3>
      <p>
        {byStaff
          ? 'The pet is held for the customer while staff look at the request; the customer sees it in My adoptions.'
          : 'The pet is held for you while staff look at your request.'}
      </p>
      <ErrorAlert error={limit === undefined ? general : undefined} />
      {byStaff && (
        <Field
          name="adopterId"
          label="Customer"
          hint="The start of their username, or their whole email address."
          error={adopterError}
        >
          {(control) => (
            <CustomerPicker
              control={control}
              chosen={adopter}
              onChoose={(customer) => {
                setAdopter(customer);
                if (customer) setNoAdopter(false);
              }}
            />
          )}
        </Field>
      )}
      <Field
        name="message"
        label={byStaff ? 'Message (optional)' : 'Message for the staff (optional)'}
        hint={
          byStaff
            ? 'Up to 1000 characters: the customer’s home, other pets, when they could collect.'
            : 'Up to 1000 characters: your home, other pets, when you could collect.'
        }
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
