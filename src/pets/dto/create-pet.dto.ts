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
import { Trim } from '../../common/dto/transforms.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

const trimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;

export class CreatePetDto {
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;

  @IsInt()
  @Min(1)
  categoryId: number;

  @IsIn(PET_STATUSES)
  status: PetStatus;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { each: true, message: 'each value in photoUrls must be an http or https URL' },
  )
  @MaxLength(2048, { each: true })
  photoUrls?: string[];

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(200)
  age?: number | null;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  breed?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @IsOptional()
  @Transform(trimEach)
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Length(1, 50, { each: true })
  tags?: string[];
}
