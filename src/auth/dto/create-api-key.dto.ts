import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
} from 'class-validator';
import { IsFutureWithin } from '../../common/dto/future-time.js';
import { Trim } from '../../common/dto/transforms.js';
import { API_KEY_MODES, type ApiKeyMode } from '../../common/types/api-key-mode.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../common/types/api-key-scope.js';
import { ApiTimestampProperty } from '../../openapi/schemas.js';

/** docs/identity.md, "Expiry and rolling": a key lives at most this long. */
export const API_KEY_MAX_LIFETIME_DAYS = 366;

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

  @ApiProperty({
    enum: API_KEY_SCOPES,
    isArray: true,
    minItems: 1,
    maxItems: API_KEY_SCOPES.length,
    required: false,
    description:
      'What the key may do; without it, every scope your role allows (now and as it changes). ' +
      'A scope your role does not allow is 400 on scopes.',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(API_KEY_SCOPES.length)
  @IsIn(API_KEY_SCOPES, { each: true })
  scopes?: ApiKeyScope[];

  @ApiTimestampProperty(
    `When the key stops working: in the future, at most ${API_KEY_MAX_LIFETIME_DAYS} days ` +
      'ahead; without it, never',
    { required: false },
  )
  @IsOptional()
  @IsISO8601({ strict: true })
  @IsFutureWithin(API_KEY_MAX_LIFETIME_DAYS)
  expiresAt?: string;
}
