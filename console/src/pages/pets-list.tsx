import { useEffect, useState } from 'preact/hooks';
import { PET_STATUSES } from '../../../src/pets/pet-status.js';
import { api, type Inventory, isOwnImage, ok, type Pet } from '../api';
import { Link, navigate, offsetOf, useLocation } from '../router';
import { ErrorAlert, PageHeading, Pager, useLoad } from '../ui';
import { canEditPets, useSession } from '../session';
import { StatusBadge } from './status-badge';

const PAGE_SIZE = 20;

interface Filters {
  category: string;
  status: string;
  offset: number;
}

function routeOf({ category, status, offset }: Filters): string {
  const query = new URLSearchParams();
  if (category) query.set('category', category);
  if (status) query.set('status', status);
  if (offset > 0) query.set('offset', String(offset));
  const search = query.toString();
  return search ? `/pets?${search}` : '/pets';
}

export function PetsPage() {
  const { query } = useLocation();
  const filters: Filters = {
    category: query.get('category') ?? '',
    status: query.get('status') ?? '',
    offset: offsetOf(query),
  };
  const categories = useLoad(() => ok(api.GET('/v1/categories')), []);
  const inventory = useLoad(() => ok(api.GET('/v1/pets/inventory')), []);
  const pets = useLoad(
    () =>
      ok(
        api.GET('/v1/pets', {
          params: {
            query: {
              limit: PAGE_SIZE,
              offset: filters.offset,
              category: filters.category || undefined,
              status: (filters.status || undefined) as Pet['status'] | undefined,
            },
          },
        }),
      ),
    [filters.category, filters.status, filters.offset],
  );

  const onFilter = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    navigate(
      routeOf({
        category: (form.get('category') as string | null) ?? '',
        status: (form.get('status') as string | null) ?? '',
        offset: 0,
      }),
    );
  };

  const current = useSession();
  return (
    <>
      <PageHeading>Pets</PageHeading>
      {canEditPets(current) && (
        <p>
          <Link class="button" href="/pets/new">
            Add a pet
          </Link>
        </p>
      )}
      {inventory.data && (
        <InventorySummary inventory={inventory.data} category={filters.category} />
      )}
      <form class="filters" onSubmit={onFilter} aria-label="Filter pets">
        <div class="field">
          <label for="filter-category">Category</label>
          <select id="filter-category" name="category" key={filters.category}>
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
          <select id="filter-status" name="status" key={filters.status}>
            <option value="">Any status</option>
            {PET_STATUSES.map((status) => (
              <option key={status} value={status} selected={status === filters.status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>

      <ErrorAlert error={pets.error ?? categories.error} />
      {pets.loading && !pets.data && <p role="status">Loading pets…</p>}
      {pets.data && pets.data.pets.length === 0 && <p role="status">No pets match.</p>}
      {pets.data && pets.data.pets.length > 0 && (
        <>
          <ul class="pet-grid" aria-busy={pets.loading}>
            {pets.data.pets.map((pet) => (
              <li key={pet.id} class="pet-card">
                <PetThumbnail pet={pet} />
                <div>
                  <h2>
                    <Link href={`/pets/${pet.id}`}>{pet.name}</Link>
                  </h2>
                  <p>
                    {pet.category.name} · <StatusBadge status={pet.status} />
                  </p>
                </div>
              </li>
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

/** The thumbnail of the pet's first uploaded image, asked for only when it has one. */
function PetThumbnail({ pet }: { pet: Pet }) {
  const [src, setSrc] = useState<string>();
  const hasUpload = pet.photoUrls.some(isOwnImage);
  useEffect(() => {
    if (!hasUpload) return;
    let current = true;
    ok(api.GET('/v1/pets/{petId}/images', { params: { path: { petId: pet.id } } })).then(
      ({ images }) => current && setSrc(images[0]?.thumbnailUrl),
      () => current && setSrc(undefined),
    );
    return () => {
      current = false;
    };
  }, [pet.id, hasUpload]);
  if (!src) return <PhotoPlaceholder />;
  return <img class="thumb" src={src} alt="" width={96} height={96} loading="lazy" />;
}

/** A paw print where a pet has no photo: drawn inline, since the console loads nothing else. */
function PhotoPlaceholder() {
  return (
    <svg class="thumb thumb-empty" viewBox="0 0 96 96" width={96} height={96} aria-hidden="true">
      <g fill="currentColor">
        <ellipse cx="48" cy="60" rx="17" ry="14" />
        <ellipse cx="27" cy="41" rx="7" ry="9" />
        <ellipse cx="40" cy="29" rx="7" ry="9" />
        <ellipse cx="56" cy="29" rx="7" ry="9" />
        <ellipse cx="69" cy="41" rx="7" ry="9" />
      </g>
    </svg>
  );
}
