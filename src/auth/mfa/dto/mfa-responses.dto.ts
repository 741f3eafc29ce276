import { ApiProperty } from '@nestjs/swagger';
import { ApiTextProperty } from '../../../openapi/schemas.js';
import { RECOVERY_CODE_PATTERN, RECOVERY_CODES_ISSUED } from '../totp.js';

// Never stored in the clear, so absent from a replay (`Idempotent-Replayed: true`).
const NOT_REPLAYED =
  'Absent from a replay (`Idempotent-Replayed: true`): enrol again if the first response was lost.';

export class TotpEnrolmentResponse {
  @ApiTextProperty(
    64,
    `The base32 secret, for typing into an authenticator app by hand. ${NOT_REPLAYED}`,
    { pattern: '^[A-Z2-7]+=*$', required: false },
  )
  secret?: string;

  @ApiTextProperty(512, `The \`otpauth://totp/…\` URL to show as a QR code. ${NOT_REPLAYED}`, {
    pattern: '^otpauth://totp/',
    required: false,
  })
  otpauthUrl?: string;
}

export class RecoveryCodesResponse {
  @ApiProperty({
    type: 'array',
    minItems: RECOVERY_CODES_ISSUED,
    maxItems: RECOVERY_CODES_ISSUED,
    items: { type: 'string', pattern: RECOVERY_CODE_PATTERN.source, maxLength: 14 },
    required: false,
    description:
      'Shown this once: each signs in (or removes the factor) once, instead of a code. Stored ' +
      'hashed only, so absent from a replay (`Idempotent-Replayed: true`).',
  })
  recoveryCodes?: string[];
}

export class MfaStatusResponse {
  @ApiProperty({
    type: 'boolean',
    description:
      'Whether the caller signs in with a TOTP code (a confirmed factor; a pending one is not)',
  })
  totp: boolean;
}
