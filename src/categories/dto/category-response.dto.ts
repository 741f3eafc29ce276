import { ApiProperty } from '@nestjs/swagger';
import { ApiIdProperty, ApiTextProperty } from '../../openapi/schemas.js';

export class CategoryResponse {
  @ApiIdProperty('Category id')
  id: number;

  @ApiTextProperty(50, 'Unique regardless of case; keeps the case it was created with', {
    minLength: 1,
  })
  name: string;

  @ApiTextProperty(500, 'Absent when not set', { required: false })
  description?: string;
}

export class CategoryListResponse {
  // Not paginated (docs/api.md, the table of routes): the list is as long as the admins make it.
  @ApiProperty({ type: [CategoryResponse], description: 'Every category, ordered by name' })
  categories: CategoryResponse[];
}
