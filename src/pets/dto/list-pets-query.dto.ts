import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { CursorQuery } from '../../common/dto/page-cursor.js';
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

  @CursorQuery(
    'pagination.nextCursor of the previous page, with the same category and status and without offset',
  )
  cursor?: string;
}
