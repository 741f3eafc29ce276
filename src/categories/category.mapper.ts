import type { Category } from './category.entity.js';
import { CategoryResponse } from './dto/category-response.dto.js';

export function toCategoryResponse(category: Category): CategoryResponse {
  return { id: category.id, name: category.name, description: category.description };
}
