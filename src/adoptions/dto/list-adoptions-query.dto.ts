import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { CursorQuery } from '../../common/dto/page-cursor.js';
import { IntegerText } from '../../common/dto/transforms.js';
import { ID_SCHEMA } from '../../openapi/schemas.js';
import { ADOPTION_STATUSES, type AdoptionStatus } from '../adoption-status.js';

export class ListAdoptionsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'Page size; out of range is 400, never clamped',
  })
  @IntegerText(1, 100)
  limit: number = 20;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...ADOPTION_STATUSES] },
    maxItems: ADOPTION_STATUSES.length,
    description:
      'Only adoptions in one of these statuses (repeatable: status=requested&status=approved)',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }): unknown => (Array.isArray(value) ? value : [value]))
  @IsArray()
  @ArrayMaxSize(ADOPTION_STATUSES.length)
  @IsIn(ADOPTION_STATUSES, { each: true })
  status?: AdoptionStatus[];

  @ApiPropertyOptional({ ...ID_SCHEMA, description: 'Only adoptions of this pet' })
  @IsOptional()
  @IntegerText(1, Number.MAX_SAFE_INTEGER)
  petId?: number;

  @ApiPropertyOptional({ ...ID_SCHEMA, description: 'Staff only: adoptions of this adopter' })
  @IsOptional()
  @IntegerText(1, Number.MAX_SAFE_INTEGER)
  adopterId?: number;

  @CursorQuery('pagination.nextCursor of the previous page, with the same filters')
  cursor?: string;
}
