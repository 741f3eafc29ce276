import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';
import { OptionalText } from '../../common/dto/optional.js';

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

  @OptionalText(500)
  description?: string | null;
}
