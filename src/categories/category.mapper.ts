import type { Category } from './category.entity.js';

export interface CategoryResponse {
  id: number;
  name: string;
  description: string | null;
}

export function toCategoryResponse(category: Category): CategoryResponse {
  return { id: category.id, name: category.name, description: category.description };
}
