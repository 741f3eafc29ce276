import { toCategoryResponse, type CategoryResponse } from '../categories/category.mapper.js';
import type { Pet } from './pet.entity.js';
import type { PetStatus } from './pet-status.js';

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

export function toPetResponse(pet: Pet): PetResponse {
  return {
    id: pet.id,
    name: pet.name,
    category: toCategoryResponse(pet.category),
    photoUrls: pet.photoUrls,
    tags: pet.tags.map((tag) => ({ id: tag.id, name: tag.name })),
    status: pet.status,
    age: pet.age,
    breed: pet.breed,
    description: pet.description,
    createdAt: pet.createdAt.toISOString(),
    updatedAt: pet.updatedAt.toISOString(),
  };
}
