import { api, ok, type PetHistoryEvent } from '../api';
import { useSession } from '../session';
import { ErrorAlert, formatDate, LoadOlder, StatusMessage, useCursorList } from '../ui';

const PAGE_SIZE = 20;

/** `changedFields` names request fields; the page names what the user sees. */
const FIELD_NAMES: Record<string, string> = { categoryId: 'category', photoUrls: 'photo links' };

function whatOf(event: PetHistoryEvent): string {
  switch (event.type) {
    case 'pet.created':
      return 'Created';
    case 'pet.updated':
      return event.changedFields?.length
        ? `Updated: ${event.changedFields.map((field) => FIELD_NAMES[field] ?? field).join(', ')}`
        : 'Updated';
    case 'pet.status_changed':
      return `Status ${event.from ?? '?'} → ${event.to ?? '?'}`;
    case 'pet.image_added':
      return 'Image added';
    case 'pet.deleted':
      return 'Deleted';
  }
}

function countOf(shown: number, total: number): string {
  if (shown < total) return `Showing ${shown} of ${total} changes.`;
  return total === 1 ? 'One change.' : `All ${total} changes.`;
}

function whoOf({ actor }: PetHistoryEvent, ownId: number | undefined): string {
  // Changes made outside the API (a migration, the command line) have no user.
  if (actor.userId === undefined) return 'The service';
  const user = actor.userId === ownId ? 'You' : `User ${actor.userId}`;
  return actor.apiKeyPrefix ? `${user}, with the key ${actor.apiKeyPrefix}…` : user;
}

/**
 * The pet's changes, newest first. `version` is the pet's ETag: a change made on this page
 * (a status move, an upload) loads the history again.
 */
export function PetHistory({ petId, version }: { petId: number; version: string }) {
  const ownId = useSession()?.userId;
  const {
    pages: history,
    more,
    announcement,
    list,
    loadOlder,
  } = useCursorList(
    'events',
    (cursor) =>
      ok(
        api.GET('/v1/pets/{petId}/history', {
          params: { path: { petId }, query: { limit: PAGE_SIZE, cursor } },
        }),
      ),
    'changes',
    [petId, version],
  );

  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorAlert error={history.error ?? more.error} />
      {history.data && history.data.events.length === 0 && <p>No changes recorded.</p>}
      {history.data && history.data.events.length > 0 && (
        <>
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
              </tr>
            </thead>
            <tbody ref={list}>
              {history.data.events.map((event) => (
                <tr key={event.id} tabIndex={-1}>
                  <td data-label="When">
                    <time dateTime={event.occurredAt}>{formatDate(event.occurredAt)}</time>
                  </td>
                  <td data-label="Who">{whoOf(event, ownId)}</td>
                  <td data-label="What">{whatOf(event)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>{countOf(history.data.events.length, history.data.pagination.total)}</p>
          <LoadOlder
            cursor={history.data.pagination.nextCursor}
            busy={more.busy}
            onLoad={loadOlder}
          >
            Load older changes
          </LoadOlder>
        </>
      )}
      <StatusMessage>{announcement}</StatusMessage>
    </section>
  );
}
