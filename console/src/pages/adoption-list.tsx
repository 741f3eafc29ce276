import type { operations } from '../../../client/index.js';
import { type Adoption, api, ok } from '../api';
import { Link } from '../router';
import { type Session } from '../session';
import { ErrorAlert, formatDate, LoadOlder, StatusMessage, useCursorList } from '../ui';
import { AdoptionStatusBadge, adopterName, HoldCountdown, MoveButtons } from './adoption-moves';

const PAGE_SIZE = 20;

export type AdoptionQuery = NonNullable<operations['listAdoptions']['parameters']['query']>;

interface AdoptionListProps {
  /** The API's filters; the list loads again when they change. */
  query: Omit<AdoptionQuery, 'limit' | 'cursor'>;
  who: Session;
  /** Columns left out where the page is about one pet, or one adopter. */
  hide?: 'pet' | 'adopter';
  /** After a move: the pet's status may have changed with it. */
  onMoved?: (adoption: Adoption) => void;
  /** What the list says when nothing matches. */
  empty: string;
  /** The table's name for assistive technology. */
  caption: string;
}

/** Adoptions, newest first, with the moves each allows; older ones on demand (cursor). */
export function AdoptionList({ query, who, hide, onMoved, empty, caption }: AdoptionListProps) {
  const key = JSON.stringify(query);
  const {
    pages: adoptions,
    more,
    announcement,
    announce,
    list,
    loadOlder,
  } = useCursorList(
    'adoptions',
    (cursor) =>
      ok(api.GET('/v1/adoptions', { params: { query: { ...query, limit: PAGE_SIZE, cursor } } })),
    'adoptions',
    [key],
  );

  const replace = (changed: Adoption) =>
    adoptions.set((data) => ({
      adoptions: (data?.adoptions ?? []).map((one) => (one.id === changed.id ? changed : one)),
      pagination: data?.pagination ?? { limit: PAGE_SIZE },
    }));

  const data = adoptions.data;
  return (
    <>
      <ErrorAlert error={adoptions.error ?? more.error} />
      <StatusMessage>{announcement}</StatusMessage>
      {adoptions.loading && !data && <p role="status">Loading…</p>}
      {data && data.adoptions.length === 0 && <p>{empty}</p>}
      {data && data.adoptions.length > 0 && (
        <>
          <table class="stack adoptions">
            <caption class="visually-hidden">{caption}</caption>
            <thead>
              <tr>
                <th scope="col">Adoption</th>
                {hide !== 'pet' && <th scope="col">Pet</th>}
                {hide !== 'adopter' && <th scope="col">Adopter</th>}
                <th scope="col">Status</th>
                <th scope="col">Message</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody ref={list}>
              {data.adoptions.map((adoption) => (
                <tr key={adoption.id} tabIndex={-1} data-adoption={adoption.id}>
                  <td data-label="Adoption">
                    {adoption.id}
                    <span class="hint adoption-note">
                      requested{' '}
                      <time class="nowrap" dateTime={adoption.createdAt}>
                        {formatDate(adoption.createdAt)}
                      </time>
                    </span>
                  </td>
                  {hide !== 'pet' && (
                    <td data-label="Pet">
                      <Link href={`/pets/${adoption.pet.id}`}>{adoption.pet.name}</Link>
                    </td>
                  )}
                  {hide !== 'adopter' && (
                    <td data-label="Adopter">
                      {who.role === 'customer' || !adoption.adopter ? (
                        adopterName(adoption)
                      ) : (
                        <Link href={`/adoptions?adopterId=${adoption.adopter.id}`}>
                          {adoption.adopter.username}
                        </Link>
                      )}
                    </td>
                  )}
                  <td data-label="Status">
                    <AdoptionStatusBadge status={adoption.status} />
                    {adoption.holdExpiresAt && (
                      <p class="adoption-note">
                        <HoldCountdown until={adoption.holdExpiresAt} />
                      </p>
                    )}
                    {/* The last staff member to move it, and the last move's reason, as the API keeps them. */}
                    {adoption.decidedBy && (
                      <p class="adoption-note hint">Staff: {adoption.decidedBy.username}</p>
                    )}
                    {adoption.reason && (
                      <p class="adoption-note hint">Reason: “{adoption.reason}”</p>
                    )}
                  </td>
                  <td data-label="Message" class="prose">
                    {adoption.message ?? <span class="hint">none</span>}
                  </td>
                  <td data-label="Actions">
                    <MoveButtons
                      adoption={adoption}
                      who={who}
                      onChanged={replace}
                      onMoved={(moved) => {
                        announce(`Adoption ${moved.id} is ${moved.status}.`);
                        onMoved?.(moved);
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadOlder
            cursor={data.pagination.nextCursor}
            busy={more.busy}
            onLoad={loadOlder}
            end={data.adoptions.length > PAGE_SIZE && <p>No older adoptions.</p>}
          >
            Load older adoptions
          </LoadOlder>
        </>
      )}
    </>
  );
}
