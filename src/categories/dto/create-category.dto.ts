import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';

export class CreateCategoryDto {
  @Trim()
  @IsString()
  @Length(1, 50)
  name: string;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}
