import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ID_SCHEMA } from '../../openapi/schemas.js';

export class CreateAdoptionDto {
  @ApiProperty({ ...ID_SCHEMA, description: 'The pet to adopt; it must be available' })
  @IsInt()
  @Min(1)
  @Max(ID_SCHEMA.maximum)
  petId: number;

  @ApiPropertyOptional({
    ...ID_SCHEMA,
    description: 'Staff only: the customer the request is made for (default: the caller)',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(ID_SCHEMA.maximum)
  adopterId?: number;

  @ApiPropertyOptional({ type: 'string', maxLength: 1000, description: 'For the staff' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  message?: string;
}
