import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsString, Length, Matches, ValidateBy, ValidateIf } from 'class-validator';
import { IsOptionalNotNull } from '../../../common/dto/optional.js';
import { RefreshTokenIn, type RefreshTokenTransport } from '../../dto/login.dto.js';
import { RECOVERY_CODE_PATTERN, TOTP_CODE_PATTERN } from '../totp.js';

/** A code of the authenticator app (6 digits) or one of the recovery codes: one of the two. */
export class MfaProofDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 6,
    maxLength: 6,
    pattern: TOTP_CODE_PATTERN.source,
    description: 'The authenticator app’s current code; or send `recoveryCode` instead',
  })
  // Validated unless a recovery code replaces it; sent with one, refused by recoveryCode.
  @ValidateIf((dto: MfaProofDto) => dto.recoveryCode === undefined)
  @IsDefined({ message: 'code (or recoveryCode) is required' })
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
export class VerifyMfaDto extends MfaProofDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description: 'The `mfaToken` of the login’s 401 MFA_REQUIRED (`mfa_…`)',
  })
  @IsString()
  @Length(1, 256)
  mfaToken: string;

  @RefreshTokenIn()
  refreshTokenIn?: RefreshTokenTransport;
}
