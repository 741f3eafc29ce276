import { strongEtag } from '../common/http/conditional-requests.js';
import type { PetHistoryEventResponse } from './dto/pet-history.dto.js';
import { PetResponse } from './dto/pet-response.dto.js';
import type { PetChangedField, PetEvent } from './pet-events.js';
import type { PendingPetEventRow, PetEventRow, PetRow } from './pets.repository.js';

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
    createdAt: pet.createdAt.toISOString(),
    updatedAt: pet.updatedAt.toISOString(),
  };
}

export const petEtag = (pet: PetRow): string => strongEtag(pet.versionTag);

/** One entry of a pet's history; what an event does not have is left out. */
export function toPetHistoryEvent(event: PetEventRow): PetHistoryEventResponse {
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt.toISOString(),
    actor: {
      userId: event.actorUserId ?? undefined,
      apiKeyPrefix: event.actorApiKeyPrefix ?? undefined,
    },
    changedFields: (event.changedFields as PetChangedField[] | null) ?? undefined,
    from: event.statusFrom ?? undefined,
    to: event.statusTo ?? undefined,
  };
}

/** An event as publishers get it: `data` is the pet as the API showed it, plus a move's from/to. */
export function toPetEvent(event: PendingPetEventRow): PetEvent {
  const data: Record<string, unknown> = { ...toPetResponse(event.pet) };
  if (event.type === 'pet.status_changed') {
    data.from = event.statusFrom;
    data.to = event.statusTo;
  }
  return {
    sequence: event.sequence,
    id: event.id,
    type: event.type,
    petId: event.petId,
    occurredAt: event.occurredAt,
    data,
  };
}
