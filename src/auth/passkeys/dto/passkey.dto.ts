import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { IsIn, IsObject, IsString, Length, Matches } from 'class-validator';
import { IsOptionalNotNull } from '../../../common/dto/optional.js';
import { REFRESH_TOKEN_TRANSPORTS, type RefreshTokenTransport } from '../../dto/login.dto.js';

export const PASSKEY_NAME_MAX_LENGTH = 64;
const VISIBLE = /\S/;

/** A credential as the browser's WebAuthn API gives it, in its JSON form; checked by the service. */
export const ApiCredentialProperty = (kind: 'registration' | 'assertion', required = true) =>
  (required ? ApiProperty : ApiPropertyOptional)({
    type: 'object',
    additionalProperties: true,
    description:
      kind === 'registration'
        ? 'The new credential: `RegistrationResponseJSON`, as `startRegistration()` of ' +
          '@simplewebauthn/browser (or `PublicKeyCredential.toJSON()`) returns it'
        : 'The assertion: `AuthenticationResponseJSON`, as `startAuthentication()` of ' +
          '@simplewebauthn/browser (or `PublicKeyCredential.toJSON()`) returns it, for ' +
          'options asked for this very step',
  });

export class PasskeyNameDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: PASSKEY_NAME_MAX_LENGTH,
    description: 'A name its owner knows it by (“Work laptop”)',
  })
  @IsString()
  @Length(1, PASSKEY_NAME_MAX_LENGTH)
  @Matches(VISIBLE, { message: 'name must not be blank' })
  name: string;
}

export class AddPasskeyDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: PASSKEY_NAME_MAX_LENGTH,
    description: 'A name its owner knows it by; `Passkey` when left out',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, PASSKEY_NAME_MAX_LENGTH)
  @Matches(VISIBLE, { message: 'name must not be blank' })
  name?: string;

  @ApiCredentialProperty('registration')
  @IsObject()
  credential: RegistrationResponseJSON;
}

export class PasskeyLoginDto {
  @ApiCredentialProperty('assertion')
  @IsObject()
  credential: AuthenticationResponseJSON;

  @ApiPropertyOptional({
    type: 'string',
    enum: REFRESH_TOKEN_TRANSPORTS,
    default: 'body',
    description: 'Where the refresh token goes, as at POST /v1/auth/login',
  })
  @IsOptionalNotNull()
  @IsIn(REFRESH_TOKEN_TRANSPORTS)
  refreshTokenIn?: RefreshTokenTransport;
}
