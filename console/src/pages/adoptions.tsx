import { ADOPTION_STATUSES, type AdoptionStatus } from '../../../src/adoptions/adoption-status.js';
import { Link, navigate, useLocation } from '../router';
import { canEditPets, useSession } from '../session';
import { PageHeading } from '../ui';
import { AdoptionList, type AdoptionQuery } from './adoption-list';

/** The queue's filters as the page's URL holds them: the API's own query parameters. */
type Filters = Pick<AdoptionQuery, 'status' | 'petId' | 'adopterId'>;

function idOf(text: string | null): number | undefined {
  const id = Number(text);
  return text && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function filtersOf(query: URLSearchParams): Filters {
  const status = ADOPTION_STATUSES.filter((one) => query.getAll('status').includes(one));
  return {
    status: status.length > 0 ? status : undefined,
    petId: idOf(query.get('petId')),
    adopterId: idOf(query.get('adopterId')),
  };
}

function queueRoute({ status, petId, adopterId }: Filters): string {
  const query = new URLSearchParams();
  for (const one of status ?? []) query.append('status', one);
  if (petId !== undefined) query.set('petId', String(petId));
  if (adopterId !== undefined) query.set('adopterId', String(adopterId));
  const search = query.toString();
  return search ? `/adoptions?${search}` : '/adoptions';
}

function FilterForm({ filters }: { filters: Filters }) {
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => ((form.get(name) as string | null) ?? '').trim();
    const status = form.getAll('status') as AdoptionStatus[];
    navigate(
      queueRoute({
        status: status.length > 0 ? status : undefined,
        petId: idOf(text('petId')),
        adopterId: idOf(text('adopterId')),
      }),
    );
  };
  return (
    // Keyed by the filters shown, so that the form follows the address (Back, Forward).
    <form
      class="filters adoption-filters"
      onSubmit={onSubmit}
      aria-label="Filter adoptions"
      key={queueRoute(filters)}
    >
      <fieldset class="field">
        <legend>Status (none ticked: any)</legend>
        <div class="choices">
          {ADOPTION_STATUSES.map((status) => (
            <label class="choice" key={status}>
              <input
                type="checkbox"
                name="status"
                value={status}
                defaultChecked={filters.status?.includes(status) ?? false}
              />
              {status}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="field">
        <label for="filter-pet">Pet id</label>
        <input
          id="filter-pet"
          name="petId"
          inputMode="numeric"
          defaultValue={filters.petId?.toString() ?? ''}
        />
      </div>
      <div class="field">
        <label for="filter-adopter">Adopter (user id)</label>
        <input
          id="filter-adopter"
          name="adopterId"
          inputMode="numeric"
          defaultValue={filters.adopterId?.toString() ?? ''}
        />
      </div>
      <button type="submit">Filter</button>
      <Link class="button button-secondary" href="/adoptions">
        Clear
      </Link>
    </form>
  );
}

/** Staff's queue: every adoption, filtered by the address, with the moves each allows. */
export function AdoptionsPage() {
  const current = useSession();
  const { query } = useLocation();
  if (!current || !canEditPets(current)) {
    return (
      <>
        <PageHeading>Adoptions</PageHeading>
        <p role="alert">
          Only staff can see every adoption. <Link href="/my-adoptions">See your adoptions</Link>.
        </p>
      </>
    );
  }
  const filters = filtersOf(query);
  return (
    <>
      <PageHeading>Adoptions</PageHeading>
      <FilterForm filters={filters} />
      <AdoptionList
        query={filters}
        who={current}
        empty="No adoptions match."
        caption="Adoptions, newest first"
      />
    </>
  );
}

/** The signed-in person's own adoptions: where each stands, its hold, and Cancel. */
export function MyAdoptionsPage() {
  const current = useSession();
  if (!current) return null;
  // A customer's list is its own; staff name themselves (the API lists everyone's for them).
  const query = current.role === 'customer' ? {} : { adopterId: current.userId };
  return (
    <>
      <PageHeading>My adoptions</PageHeading>
      <AdoptionList
        query={query}
        who={current}
        hide="adopter"
        empty="You have not asked to adopt a pet yet. Open an available pet to request its adoption."
        caption="Your adoptions, newest first"
      />
      <p>
        <Link href="/pets?status=available">Pets available for adoption</Link>
      </p>
    </>
  );
}
