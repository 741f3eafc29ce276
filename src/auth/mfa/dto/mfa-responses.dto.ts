import { ApiProperty } from '@nestjs/swagger';
import { ApiTextProperty } from '../../../openapi/schemas.js';
import { RECOVERY_CODE_PATTERN, RECOVERY_CODES_ISSUED } from '../totp.js';

export class TotpEnrolmentResponse {
  @ApiTextProperty(64, 'The base32 secret, for typing into an authenticator app by hand', {
    pattern: '^[A-Z2-7]+=*$',
  })
  secret: string;

  @ApiTextProperty(512, 'The `otpauth://totp/…` URL to show as a QR code', {
    pattern: '^otpauth://totp/',
  })
  otpauthUrl: string;
}

export class RecoveryCodesResponse {
  @ApiProperty({
    type: 'array',
    minItems: RECOVERY_CODES_ISSUED,
    maxItems: RECOVERY_CODES_ISSUED,
    items: { type: 'string', pattern: RECOVERY_CODE_PATTERN.source, maxLength: 14 },
    description: 'Shown this once: each signs in (or removes the factor) once, instead of a code',
  })
  recoveryCodes: string[];
}
