import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { PET_STATUSES } from '../../../src/pets/pet-status.js';
import type { operations, Schemas } from '../../../client/index.js';
import { api, downloadPetExport, type Inventory, ok, type Pet } from '../api';
import { Link, navigate, offsetOf, useLocation } from '../router';
import { ErrorAlert, PageHeading, Pager, useLoad } from '../ui';
import { canEditPets, useSession } from '../session';
import { PetCard } from './pet-card';

const PAGE_SIZE = 20;

type Facets = Schemas['PetFacetsResponse'];
type Sort = NonNullable<NonNullable<operations['listPets']['parameters']['query']>['sort']>;
const SORTS: { value: Sort; label: string }[] = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: 'name', label: 'Name A–Z' },
  { value: '-name', label: 'Name Z–A' },
  { value: 'age', label: 'Youngest first' },
  { value: '-age', label: 'Oldest (age) first' },
  { value: 'relevance', label: 'Best match' },
];

/** Everything the list shows, as the page's URL holds it (so a search can be shared). */
interface Filters {
  q: string;
  category: string;
  status: string;
  tags: string[];
  minAge: string;
  maxAge: string;
  sort: string;
  offset: number;
}

function routeOf({ q, category, status, tags, minAge, maxAge, sort, offset }: Filters): string {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (category) query.set('category', category);
  if (status) query.set('status', status);
  for (const tag of tags) query.append('tag', tag);
  if (minAge) query.set('minAge', minAge);
  if (maxAge) query.set('maxAge', maxAge);
  if (sort) query.set('sort', sort);
  if (offset > 0) query.set('offset', String(offset));
  const search = query.toString();
  return search ? `/pets?${search}` : '/pets';
}

/** Where the page is wide enough for every filter beside the list (styles.css's breakpoint). */
const WIDE_SCREEN = matchMedia('(min-width: 40rem)');

/** Folded on a phone, so that the pets show above the fold; open on wider screens. */
function Fold({
  class: className,
  summary,
  children,
}: {
  class: string;
  summary: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <details class={className} open={WIDE_SCREEN.matches}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** An age bound of the filters, 0 to 100 as the API takes it. */
function AgeField({ name, label, value }: { name: string; label: string; value: string }) {
  const id = `filter-${name}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={name} type="number" min={0} max={100} defaultValue={value} />
    </div>
  );
}

/** How many of the folded filters are set, for the fold's summary. */
function setFilters(filters: Filters): number {
  const { category, status, tags, minAge, maxAge, sort } = filters;
  return [category, status, tags.join(), minAge, maxAge, sort].filter(Boolean).length;
}

/** The API's filters of the page's filters (the list's and the facets'). */
function apiFilters(filters: Filters) {
  const age = (value: string) => (value === '' ? undefined : Number(value));
  return {
    q: filters.q || undefined,
    category: filters.category || undefined,
    status: (filters.status || undefined) as Pet['status'] | undefined,
    tag: filters.tags.length > 0 ? filters.tags : undefined,
    minAge: age(filters.minAge),
    maxAge: age(filters.maxAge),
  };
}

export function PetsPage() {
  const { query } = useLocation();
  const filters: Filters = {
    q: query.get('q') ?? '',
    category: query.get('category') ?? '',
    status: query.get('status') ?? '',
    tags: query.getAll('tag'),
    minAge: query.get('minAge') ?? '',
    maxAge: query.get('maxAge') ?? '',
    sort: query.get('sort') ?? '',
    offset: offsetOf(query),
  };
  const key = routeOf({ ...filters, offset: 0 });
  const categories = useLoad(() => ok(api.GET('/v1/categories')), []);
  const inventory = useLoad(() => ok(api.GET('/v1/pets/inventory')), []);
  const facets = useLoad(
    () => ok(api.GET('/v1/pets/facets', { params: { query: apiFilters(filters) } })),
    [key],
  );
  const pets = useLoad(
    () =>
      ok(
        api.GET('/v1/pets', {
          params: {
            query: {
              ...apiFilters(filters),
              limit: PAGE_SIZE,
              offset: filters.offset,
              sort: (filters.sort || undefined) as Sort | undefined,
            },
          },
        }),
      ),
    [key, filters.offset],
  );

  const onFilter = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => ((form.get(name) as string | null) ?? '').trim();
    const q = text('q');
    navigate(
      routeOf({
        q,
        category: text('category'),
        status: text('status'),
        tags: text('tags')
          .split(',')
          .map((tag) => tag.trim())
          .filter(Boolean),
        minAge: text('minAge'),
        maxAge: text('maxAge'),
        sort: text('sort'),
        offset: 0,
      }),
    );
  };

  // The API's order when none is named, offered as the empty entry so that no order is
  // listed twice; relevance, the default of a search, is offered only so.
  const defaultSort: Sort = filters.q ? 'relevance' : '-createdAt';
  const current = useSession();
  return (
    <>
      <PageHeading>Pets</PageHeading>
      {canEditPets(current) && <StaffActions filters={filters} />}
      {inventory.data && (
        <InventorySummary inventory={inventory.data} category={filters.category} />
      )}
      <form class="filters" onSubmit={onFilter} aria-label="Filter pets" key={key}>
        <div class="field">
          <label for="filter-q">Search</label>
          <input id="filter-q" name="q" type="search" maxLength={200} defaultValue={filters.q} />
        </div>
        <Fold
          class="filter-more"
          summary={
            <>
              More filters
              {setFilters(filters) > 0 && ` (${setFilters(filters)} set)`}
            </>
          }
        >
          <div class="filter-fields">
            <div class="field">
              <label for="filter-category">Category</label>
              <select id="filter-category" name="category">
                <option value="">All categories</option>
                {categories.data?.categories.map((category) => (
                  <option
                    key={category.id}
                    value={category.name}
                    selected={category.name === filters.category}
                  >
                    {category.name}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="filter-status">Status</label>
              <select id="filter-status" name="status">
                <option value="">Any status</option>
                {PET_STATUSES.map((status) => (
                  <option key={status} value={status} selected={status === filters.status}>
                    {status}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="filter-tags">Tags (all of, comma-separated)</label>
              <input id="filter-tags" name="tags" defaultValue={filters.tags.join(', ')} />
            </div>
            <AgeField name="minAge" label="Min age" value={filters.minAge} />
            <AgeField name="maxAge" label="Max age" value={filters.maxAge} />
            <div class="field">
              <label for="filter-sort">Sort</label>
              <select id="filter-sort" name="sort">
                <option value="">{SORTS.find((sort) => sort.value === defaultSort)?.label}</option>
                {SORTS.filter(
                  (sort) => sort.value !== defaultSort && sort.value !== 'relevance',
                ).map((sort) => (
                  <option
                    key={sort.value}
                    value={sort.value}
                    selected={sort.value === filters.sort}
                  >
                    {sort.label}
                  </option>
                ))}
              </select>
            </div>
          </div>
        </Fold>
        <button type="submit">Filter</button>
      </form>
      {filters.tags.length > 0 && (
        <ul class="chips" aria-label="Tag filters">
          {filters.tags.map((tag) => (
            <li key={tag}>
              <Link
                class="chip"
                href={routeOf({
                  ...filters,
                  tags: filters.tags.filter((t) => t !== tag),
                  offset: 0,
                })}
                aria-label={`Remove tag ${tag}`}
              >
                {tag} ×
              </Link>
            </li>
          ))}
        </ul>
      )}
      {facets.data && <FacetCounts facets={facets.data} filters={filters} />}

      <ErrorAlert error={pets.error ?? categories.error ?? facets.error} />
      {pets.loading && !pets.data && <p role="status">Loading pets…</p>}
      {pets.data && pets.data.pets.length === 0 && <p role="status">No pets match.</p>}
      {pets.data && pets.data.pets.length > 0 && (
        <>
          <ul class="pet-grid" aria-busy={pets.loading}>
            {pets.data.pets.map((pet) => (
              <PetCard key={pet.id} pet={pet} q={filters.q} />
            ))}
          </ul>
          <Pager
            offset={filters.offset}
            count={pets.data.pets.length}
            total={pets.data.pagination.total}
            limit={PAGE_SIZE}
            hrefOf={(offset) => routeOf({ ...filters, offset })}
          />
        </>
      )}
    </>
  );
}

/**
 * Add a pet, download every pet the current filters match (the sort and page do not
 * apply to an export), and import a file of pets, on one line so that the pets stay near the top on a phone.
 */
function StaffActions({ filters }: { filters: Filters }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const download = async (format: 'ndjson' | 'csv') => {
    setBusy(true);
    setError(undefined);
    try {
      await downloadPetExport({ ...apiFilters(filters), format });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p>
        <Link class="button" href="/pets/new">
          Add a pet
        </Link>{' '}
        <button type="button" disabled={busy} onClick={() => void download('csv')}>
          Export CSV
        </button>{' '}
        <button type="button" disabled={busy} onClick={() => void download('ndjson')}>
          Export NDJSON
        </button>{' '}
        <Link class="button" href="/pets/import">
          Import
        </Link>
        {busy && <span role="status"> Preparing the export…</span>}
      </p>
      <ErrorAlert error={error} />
    </>
  );
}

/** What the filters match: by status, by category and the most frequent tags (each a link). */
function FacetCounts({ facets, filters }: { facets: Facets; filters: Filters }) {
  return (
    <section class="facets" aria-labelledby="facets-title">
      <h2 id="facets-title" class="visually-hidden">
        Matching pets
      </h2>
      <p>
        {facets.total} matching: {facets.status.available} available · {facets.status.pending}{' '}
        pending · {facets.status.sold} sold
      </p>
      {(facets.categories.length > 0 || facets.tags.length > 0) && (
        // Twenty tags would push the pets down, as the filters would.
        <Fold class="facet-more" summary="By category and tag">
          {facets.categories.length > 0 && (
            <p>
              {facets.categories.map((category, n) => (
                <span key={category.id}>
                  {n > 0 && ' · '}
                  <Link href={routeOf({ ...filters, category: category.name, offset: 0 })}>
                    {category.name}
                  </Link>{' '}
                  ({category.count})
                </span>
              ))}
            </p>
          )}
          {facets.tags.length > 0 && (
            <ul class="chips" aria-label="Tags of the matching pets">
              {facets.tags.map((tag) => (
                <li key={tag.name}>
                  <Link
                    class="chip"
                    href={routeOf({ ...filters, tags: [...filters.tags, tag.name], offset: 0 })}
                  >
                    {tag.name} ({tag.count})
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Fold>
      )}
    </section>
  );
}

/** Pets by status in every category, or in the filtered one (names match in any case). */
function InventorySummary({ inventory, category }: { inventory: Inventory; category: string }) {
  const scope = category
    ? inventory.byCategory.find((row) => row.name.toLowerCase() === category.toLowerCase())
    : { ...inventory, name: 'All categories' };
  if (!scope) return null;
  return (
    <section class="inventory" aria-labelledby="inventory-title">
      <h2 id="inventory-title" class="visually-hidden">
        Inventory
      </h2>
      <p>
        {scope.name}: {scope.available} available · {scope.pending} pending · {scope.sold} sold
      </p>
    </section>
  );
}
