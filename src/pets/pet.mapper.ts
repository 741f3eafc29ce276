import { strongEtag } from '../common/http/conditional-requests.js';
import { PetResponse } from './dto/pet-response.dto.js';
import type { PetRow } from './pets.repository.js';

// Unset fields become undefined, which JSON leaves out (contract: never null); one object
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
