import { IsIn, IsString, Length } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';
import { API_KEY_MODES, type ApiKeyMode } from '../api-key-format.js';

export class CreateApiKeyDto {
  @Trim()
  @IsString()
  @Length(1, 100)
  name: string;

  @IsIn(API_KEY_MODES)
  mode: ApiKeyMode;
}
