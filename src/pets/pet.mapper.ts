import { PetResponse } from './dto/pet-response.dto.js';
import type { PetRow } from './pet.queries.js';

export function toPetResponse(pet: PetRow): PetResponse {
  return {
    id: pet.id,
    name: pet.name,
    category: { id: pet.categoryId, name: pet.categoryName, description: pet.categoryDescription },
    photoUrls: pet.photoUrls,
    tags: pet.tags,
    status: pet.status,
    age: pet.age,
    breed: pet.breed,
    description: pet.description,
    createdAt: pet.createdAt.toISOString(),
    updatedAt: pet.updatedAt.toISOString(),
  };
}
