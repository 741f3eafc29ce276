import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../common/dto/pagination-query.dto.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

export class ListPetsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 50,
    description: 'Category name, any case; an unknown name gives an empty page',
  })
  @IsOptional()
  @IsString()
  @Length(1, 50)
  category?: string;

  @ApiPropertyOptional({ enum: PET_STATUSES })
  @IsOptional()
  @IsIn(PET_STATUSES)
  status?: PetStatus;

  /** Opaque keyset cursor from a previous page's `pagination.nextCursor`. */
  @ApiPropertyOptional({
    type: 'string',
    maxLength: 512,
    pattern: '^[A-Za-z0-9_-]+$',
    description:
      'pagination.nextCursor of the previous page, with the same category and status and without offset',
  })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}
