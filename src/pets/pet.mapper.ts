import type { CategoryResponse } from '../categories/category.mapper.js';
import type { PetStatus } from './pet-status.js';
import type { PetRow } from './pet.queries.js';

export interface PetResponse {
  id: number;
  name: string;
  category: CategoryResponse;
  photoUrls: string[];
  tags: { id: number; name: string }[];
  status: PetStatus;
  age: number | null;
  breed: string | null;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

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
