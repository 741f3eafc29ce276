import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../common/dto/pagination-query.dto.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

export class ListPetsQueryDto extends PaginationQueryDto {
  @IsOptional()
  @IsString()
  @Length(1, 50)
  category?: string;

  @IsOptional()
  @IsIn(PET_STATUSES)
  status?: PetStatus;

  /** Opaque keyset cursor from a previous page's `pagination.nextCursor`. */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}
