import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';

export class CreateCategoryDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 50,
    description: 'Trimmed; unique regardless of case',
  })
  @Trim()
  @IsString()
  @Length(1, 50)
  name: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 500,
    nullable: true,
    description: 'null: not set (on update, clears it)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;
}
