import { HttpException, HttpStatus } from '@nestjs/common';

export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INVALID_IMAGE',
  'AUTHENTICATION_REQUIRED',
  'INVALID_TOKEN',
  'EXPIRED_TOKEN',
  'INVALID_API_KEY',
  'INVALID_CREDENTIALS',
  'INSUFFICIENT_PERMISSIONS',
  'NOT_FOUND',
  'PET_NOT_FOUND',
  'CATEGORY_NOT_FOUND',
  'USER_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INVALID_STATUS_TRANSITION',
  'CONFLICT',
  'CATEGORY_IN_USE',
  'API_KEY_LIMIT_REACHED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  field: string;
  message: string;
}

/** An error the client is meant to see, in the contract's shape. */
export class ApiException extends HttpException {
  constructor(
    status: HttpStatus,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }

  static validation(fields: FieldError[]): ApiException {
    const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return new ApiException(
      HttpStatus.BAD_REQUEST,
      'VALIDATION_ERROR',
      `Validation failed (${summary})`,
      {
        fields,
      },
    );
  }

  static notFound(code: ErrorCode, message: string): ApiException {
    return new ApiException(HttpStatus.NOT_FOUND, code, message);
  }
}
