import { IsOptional } from 'class-validator';
import { IntegerText } from './transforms.js';

export const MAX_OFFSET = 1_000_000;

export class PaginationQueryDto {
  @IntegerText(1, 100)
  limit: number = 20;

  /** Left undefined when not sent, so that keyset paging can refuse it; 0 by default. */
  @IsOptional()
  @IntegerText(0, MAX_OFFSET)
  offset?: number;
}

export interface Pagination {
  limit: number;
  offset: number;
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

export function paginationOf(
  limit: number,
  offset: number,
  pageLength: number,
  total: number,
): Pagination {
  return { limit, offset, total, hasMore: offset + pageLength < total };
}
