import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';
import { API_KEY_MODES, type ApiKeyMode } from '../../common/types/api-key-mode.js';

export class CreateApiKeyDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 100, description: 'Trimmed' })
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({
    enum: API_KEY_MODES,
    description: 'live or test; the deployment may accept only some (API_KEY_MODES)',
  })
  @IsIn(API_KEY_MODES)
  mode: ApiKeyMode;
}
