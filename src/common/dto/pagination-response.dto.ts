import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COUNT_SCHEMA } from './count-schema.js';

export class PaginationResponse {
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 100 })
  limit: number;

  @ApiProperty({
    ...COUNT_SCHEMA,
    description: 'Items before this page (for a cursor page: when its cursor was issued)',
  })
  offset: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Exact number of matching items' })
  total: number;

  @ApiProperty({ description: '`offset + page length < total`' })
  hasMore: boolean;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 512,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'Opaque keyset cursor for the next page; present when this page is not the last',
  })
  nextCursor?: string;
}
