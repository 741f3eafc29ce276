import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MAX_PAGE_SIZE } from '../contract-limits.js';
import { PaginationResponse } from './pagination-response.dto.js';
import { IntegerText } from './transforms.js';

export const MAX_OFFSET = 1_000_000;

export class PaginationQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: 20,
    description: 'Page size; out of range is 400, never clamped',
  })
  @IntegerText(1, MAX_PAGE_SIZE)
  limit: number = 20;

  /** Left undefined when not sent, so that keyset paging can refuse it; 0 by default. */
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: MAX_OFFSET,
    default: 0,
    description: 'Items to skip',
  })
  @IsOptional()
  @IntegerText(0, MAX_OFFSET)
  offset?: number;
}

/**
 * Lists a caller usually reads whole (users, API keys): the same parameters, a first page
 * of 100.
 */
export class LargePageQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: 100,
    description: 'Page size; out of range is 400, never clamped',
  })
  override limit: number = 100;
}

/** The `pagination` object of list responses; documented by PaginationResponse. */
export type Pagination = PaginationResponse;

export function paginationOf(
  limit: number,
  offset: number,
  pageLength: number,
  total: number,
): Pagination {
  return { limit, offset, total, hasMore: offset + pageLength < total };
}
