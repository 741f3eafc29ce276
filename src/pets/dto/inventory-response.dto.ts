import { ApiProperty } from '@nestjs/swagger';
import { COUNT_SCHEMA } from '../../common/dto/count-schema.js';
import { ApiIdProperty, ApiTextProperty } from '../../openapi/schemas.js';

class StatusCounts {
  @ApiProperty({ ...COUNT_SCHEMA, description: 'Pets available' })
  available: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Pets pending' })
  pending: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Pets sold' })
  sold: number;
}

export class CategoryInventory extends StatusCounts {
  @ApiIdProperty('Category id')
  id: number;

  @ApiTextProperty(50, 'Category name', { minLength: 1 })
  name: string;
}

export class InventoryResponse extends StatusCounts {
  @ApiProperty({
    type: [CategoryInventory],
    description: 'Every category, by name; zeros where it has no pets',
  })
  byCategory: CategoryInventory[];
}
