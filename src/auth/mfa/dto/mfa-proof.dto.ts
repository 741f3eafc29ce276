import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  IsDefined,
  IsObject,
  IsString,
  Length,
  Matches,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { IsOptionalNotNull } from '../../../common/dto/optional.js';
import { RefreshTokenIn, type RefreshTokenTransport } from '../../dto/login.dto.js';
import { ApiCredentialProperty } from '../../passkeys/dto/passkey.dto.js';
import { RECOVERY_CODE_PATTERN, TOTP_CODE_PATTERN } from '../totp.js';

/**
 * A code of the authenticator app (6 digits), one of the recovery codes, or an assertion of
 * one of the account's passkeys: one of the three.
 */
export class MfaProofDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 6,
    maxLength: 6,
    pattern: TOTP_CODE_PATTERN.source,
    description:
      'The authenticator app’s current code; or send `recoveryCode` or `passkey` instead',
  })
  // Validated unless another proof replaces it; sent with one, refused by that one.
  @ValidateIf((dto: MfaProofDto) => dto.recoveryCode === undefined && dto.passkey === undefined)
  @IsDefined({ message: 'code (or recoveryCode, or passkey) is required' })
  @IsString()
  @Matches(TOTP_CODE_PATTERN, { message: 'code must be 6 digits' })
  code?: string;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 12,
    maxLength: 14,
    pattern: RECOVERY_CODE_PATTERN.source,
    description: 'One of the recovery codes, each good once (any case, dashes optional)',
  })
  @IsOptionalNotNull()
  @ValidateBy({
    name: 'notWithCode',
    validator: {
      validate: (_value, args) => (args?.object as MfaProofDto).code === undefined,
      defaultMessage: () => 'send code or recoveryCode, not both',
    },
  })
  @IsString()
  @Matches(RECOVERY_CODE_PATTERN, { message: 'recoveryCode must be 12 base32 characters' })
  recoveryCode?: string;

  @ApiCredentialProperty('assertion', false)
  @IsOptionalNotNull()
  @ValidateBy({
    name: 'alone',
    validator: {
      validate: (_value, args) => {
        const dto = args?.object as MfaProofDto;
        return dto.code === undefined && dto.recoveryCode === undefined;
      },
      defaultMessage: () => 'send one of code, recoveryCode and passkey',
    },
  })
  @IsObject()
  passkey?: AuthenticationResponseJSON;
}

/** The waiting login a passkey is to complete. */
export class MfaTokenDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description: 'The `mfaToken` of the login’s 401 MFA_REQUIRED (`mfa_…`)',
  })
  @IsString()
  @Length(1, 256)
  mfaToken: string;
}

export class ConfirmTotpDto {
  @ApiProperty({
    type: 'string',
    minLength: 6,
    maxLength: 6,
    pattern: TOTP_CODE_PATTERN.source,
    description: 'A current code of the secret being enrolled',
  })
  @IsString()
  @Matches(TOTP_CODE_PATTERN, { message: 'code must be 6 digits' })
  code: string;
}

/** Loose bounds for the token: any other string is one that does not exist, answered as one. */
export class VerifyMfaDto extends IntersectionType(MfaProofDto, MfaTokenDto) {
  @RefreshTokenIn()
  refreshTokenIn?: RefreshTokenTransport;
}
