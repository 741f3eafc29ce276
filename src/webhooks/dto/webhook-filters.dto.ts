import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/dto/optional.js';
import { ID_SCHEMA } from '../../openapi/schemas.js';
import { PET_STATUSES, type PetStatus } from '../../pets/pet-status.js';

/** Values per filter: enough for any shop's categories or tags, small enough for one query. */
export const MAX_FILTER_VALUES = 50;

const trimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;

/**
 * What narrows a subscription's pet events (adoption events are not filtered): a pet event
 * is sent when every filter given matches the pet as the event's data shows it. A filter
 * left out matches every pet; an empty list would match none, so it is refused.
 */
export class WebhookFiltersDto {
  @ApiPropertyOptional({
    type: 'array',
    items: ID_SCHEMA,
    minItems: 1,
    maxItems: MAX_FILTER_VALUES,
    uniqueItems: true,
    description: 'The pet’s category is one of these (category ids)',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILTER_VALUES)
  @ArrayUnique({ message: 'categoryIds must not list an id twice' })
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(ID_SCHEMA.maximum, { each: true })
  categoryIds?: number[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...PET_STATUSES] },
    minItems: 1,
    maxItems: PET_STATUSES.length,
    uniqueItems: true,
    description: 'The pet’s status (after the change) is one of these',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique({ message: 'statuses must not list a status twice' })
  @IsIn(PET_STATUSES, {
    each: true,
    message: `each value in statuses must be one of: ${PET_STATUSES.join(', ')}`,
  })
  statuses?: PetStatus[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 50 },
    minItems: 1,
    maxItems: MAX_FILTER_VALUES,
    description: 'The pet carries at least one of these tags (trimmed, case-insensitive)',
  })
  @IsOptionalNotNull()
  @Transform(trimEach)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILTER_VALUES)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  tags?: string[];
}
