import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '../common/errors/api-exception.js';

/** The one error body (docs/api.md, Errors); every error response uses it. */
export class ErrorResponse {
  @ApiProperty({ enum: ERROR_CODES, description: 'Machine-readable error code' })
  code: ErrorCode;

  // No maxLength: a validation message names every failing field of the request.
  @ApiProperty({ type: 'string', description: 'Human-readable explanation, safe to show' })
  message: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Code-specific facts: `fields` [{field, message}] for VALIDATION_ERROR; ' +
      '`{expired_at, current_time}` for EXPIRED_TOKEN; `{from, to, allowed}` for ' +
      'INVALID_STATUS_TRANSITION; `field` for CONFLICT; `{limit, window, retryAfter}` for ' +
      'RATE_LIMIT_EXCEEDED; `maxBytes` for an oversized upload; `allowed` for METHOD_NOT_ALLOWED; ' +
      '`required` (the scopes that would do) for INSUFFICIENT_SCOPE; `{reason: "expired", ' +
      'expiredAt}` for an expired key’s INVALID_API_KEY',
  })
  details?: Record<string, unknown>;

  @ApiProperty({
    type: 'string',
    maxLength: 128,
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    description: 'The X-Request-Id of this response, for support requests',
  })
  requestId: string;
}
