import { ApiProperty } from '@nestjs/swagger';
import { COUNT_SCHEMA } from '../../common/dto/count-schema.js';
import { ApiIdProperty, ApiTextProperty } from '../../openapi/schemas.js';

class FacetStatusCounts {
  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets available' })
  available: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets pending' })
  pending: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets sold' })
  sold: number;
}

class CategoryFacet {
  @ApiIdProperty('Category id')
  id: number;

  @ApiTextProperty(50, 'Category name', { minLength: 1 })
  name: string;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets in the category' })
  count: number;
}

class TagFacet {
  @ApiTextProperty(50, 'Tag name', { minLength: 1 })
  name: string;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets with the tag' })
  count: number;
}

export class PetFacetsResponse {
  @ApiProperty({ ...COUNT_SCHEMA, description: 'Matching pets' })
  total: number;

  @ApiProperty({ type: FacetStatusCounts })
  status: FacetStatusCounts;

  @ApiProperty({
    type: [CategoryFacet],
    description: 'The categories with matching pets, most first, then by name',
  })
  categories: CategoryFacet[];

  @ApiProperty({
    type: [TagFacet],
    maxItems: 20,
    description: 'The 20 tags most frequent among the matching pets, then by name',
  })
  tags: TagFacet[];
}
