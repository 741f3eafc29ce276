import { ApiPropertyOptional } from '@nestjs/swagger';
import { PaginationQueryDto } from '../../common/dto/pagination-query.dto.js';

/** Paged as GET /v1/users is: the same parameters and defaults. */
export class ListApiKeysQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 100,
    default: 100,
    description: 'Page size; out of range is 400, never clamped',
  })
  override limit: number = 100;
}
