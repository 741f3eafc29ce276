import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_PHOTO_URLS } from '../../common/contract-limits.js';
import { IsOptionalNotNull, OptionalText } from '../../common/dto/optional.js';
import { Trim } from '../../common/dto/transforms.js';
import { ID_SCHEMA, URL_SCHEMA } from '../../openapi/schemas.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

/** Tags per pet. */
export const MAX_TAGS = 20;

const trimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;

export class CreatePetDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 100, description: 'Trimmed' })
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({ ...ID_SCHEMA, description: 'An existing category, else 400 on categoryId' })
  @IsInt()
  @Min(1)
  // As documented: a larger integer (2^63, 1e308) would overflow the bigint column (a 500).
  @Max(ID_SCHEMA.maximum)
  categoryId: number;

  @ApiProperty({ enum: PET_STATUSES, description: 'See the allowed status moves' })
  @IsIn(PET_STATUSES)
  status: PetStatus;

  @ApiPropertyOptional({
    type: 'array',
    items: URL_SCHEMA,
    maxItems: MAX_PHOTO_URLS,
    description: 'http or https URLs; on update the whole list is replaced',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_PHOTO_URLS)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { each: true, message: 'each value in photoUrls must be an http or https URL' },
  )
  @MaxLength(2048, { each: true })
  photoUrls?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 200,
    nullable: true,
    description: 'null: not set (on update, clears it)',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(200)
  age?: number | null;

  @OptionalText(100)
  breed?: string | null;

  @OptionalText(5000)
  description?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 50 },
    maxItems: MAX_TAGS,
    description:
      'Tag names (trimmed, case-sensitive), created on first use; on update the whole list is replaced',
  })
  @IsOptionalNotNull()
  @Transform(trimEach)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  tags?: string[];

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 100,
    nullable: true,
    description:
      'The shop’s own id for the pet, unique (else 409 EXTERNAL_ID_TAKEN), compared as ' +
      'written; null on update clears it',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  externalId?: string | null;
}
