import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CursorQuery } from '../../common/dto/page-cursor.js';
import { PaginationQueryDto } from '../../common/dto/pagination-query.dto.js';
import { PET_SORTS, type PetSort } from '../pet-sort.js';
import { OnlyWith, PetFiltersQueryDto } from './pet-filters-query.dto.js';

export class ListPetsQueryDto extends IntersectionType(PetFiltersQueryDto, PaginationQueryDto) {
  @ApiPropertyOptional({
    enum: PET_SORTS,
    description:
      'Default: `relevance` with q, `-createdAt` (newest first) without; `relevance` only ' +
      'with q. Names compare by lower case; pets without an age come last either way; ' +
      'ties by id, descending',
  })
  @IsOptional()
  @IsIn(PET_SORTS)
  @OnlyWith('relevance', 'q')
  sort?: PetSort;

  @CursorQuery(
    'pagination.nextCursor of the previous page, with the same filters and sort and without offset',
  )
  cursor?: string;
}
