import { strongEtag, type IfMatch } from '../common/http/conditional-requests.js';
import type { Role } from '../common/types/principal.js';
import type { PetHistoryEventResponse } from './dto/pet-history.dto.js';
import { PetResponse, type PetAdoptionResponse } from './dto/pet-response.dto.js';
import type { PetHold } from './pet-holds.service.js';
import { petRowOfSnapshot, type PetEvent } from './pet-events.js';
import type { PetRow } from './sql/pet-reads.sql.js';

// Unset fields become undefined, which JSON leaves out (docs/api.md: never null); one object
// literal per row keeps every pet the same shape, with no copy to delete keys from.
export function toPetResponse(pet: PetRow): PetResponse {
  return {
    id: pet.id,
    name: pet.name,
    category: {
      id: pet.categoryId,
      name: pet.categoryName,
      description: pet.categoryDescription ?? undefined,
    },
    photoUrls: pet.photoUrls,
    tags: pet.tags,
    status: pet.status,
    age: pet.age ?? undefined,
    breed: pet.breed ?? undefined,
    description: pet.description ?? undefined,
    externalId: pet.externalId ?? undefined,
    createdAt: pet.createdAt.toISOString(),
    updatedAt: pet.updatedAt.toISOString(),
  };
}

export const toPetAdoption = (hold: PetHold): PetAdoptionResponse => ({
  id: hold.id,
  status: hold.status,
  holdExpiresAt: hold.holdExpiresAt?.toISOString(),
});

/**
 * The pet's ETag: its version tag, and with the open adoption `GET /pets/{id}` shows, that
 * adoption's id and version after a `-`, so that a move of the adoption (approve, extend)
 * changes the ETag of the read that shows it.
 */
export const petEtag = (pet: PetRow, hold?: PetHold): string =>
  strongEtag(hold ? `${pet.versionTag}-${hold.id}.${hold.version}` : pet.versionTag);

const HOLD_PART = /-\d+\.\d+$/;

/**
 * An If-Match on the pet compared with the pet's own version tag: a write of the pet neither
 * depends on nor changes its adoption, so a tag read with the adoption holds for it.
 */
export const petIfMatch = (ifMatch: IfMatch | undefined): IfMatch | undefined =>
  ifMatch === undefined || ifMatch === '*'
    ? ifMatch
    : ifMatch.map((tag) => tag.replace(HOLD_PART, ''));

/**
 * One entry of a pet's history; what an event does not have is left out. A customer learns
 * only whether staff or a customer made a change, not who or with which key. Customers move
 * pets only through their own adoptions; an actor recorded without a role is staff. A change
 * recorded without a user is the service's own (NO_ACTOR: a hold's expiry, the cancel of a
 * deleted adopter's adoption), the same for every reader.
 */
export function toPetHistoryEvent(event: PetEvent, reader: Role): PetHistoryEventResponse {
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    actor:
      event.actorUserId === null
        ? { role: 'system' }
        : reader === 'customer'
          ? { role: roleSeenByCustomer(event.actorRole) }
          : { userId: event.actorUserId, apiKeyPrefix: event.actorApiKeyPrefix ?? undefined },
    changedFields: event.changedFields ?? undefined,
    from: event.statusFrom ?? undefined,
    to: event.statusTo ?? undefined,
    adoptionId: event.adoptionId ?? undefined,
  };
}

const roleSeenByCustomer = (role: Role | null | undefined) =>
  role === 'customer' ? 'customer' : 'staff';

/** An event's `data` for webhooks: the pet as the API showed it, plus a move's from/to. */
export function petEventData(event: PetEvent): Record<string, unknown> {
  const data: Record<string, unknown> = { ...toPetResponse(petRowOfSnapshot(event.pet)) };
  if (event.type === 'pet.status_changed') {
    data.from = event.statusFrom;
    data.to = event.statusTo;
  }
  return data;
}
