import type { Category } from './category.entity.js';
import { CategoryResponse } from './dto/category-response.dto.js';

// An unset description becomes undefined, which JSON leaves out (docs/api.md: never null).
export function toCategoryResponse(category: Category): CategoryResponse {
  return {
    id: category.id,
    name: category.name,
    description: category.description ?? undefined,
  };
}
