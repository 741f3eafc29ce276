import { HttpException, HttpStatus } from '@nestjs/common';
import { RETRY_AFTER_HEADER } from '../http/header-names.js';

/**
 * Every error code and the one status it is answered with (docs/api.md, Errors). The
 * order is the one the OpenAPI document lists them in.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: HttpStatus.BAD_REQUEST,
  INVALID_JSON: HttpStatus.BAD_REQUEST,
  INVALID_IMAGE: HttpStatus.BAD_REQUEST,
  INVALID_TOKEN_VALUE: HttpStatus.BAD_REQUEST,
  PASSKEY_REGISTRATION_FAILED: HttpStatus.BAD_REQUEST,
  AUTHENTICATION_REQUIRED: HttpStatus.UNAUTHORIZED,
  INVALID_TOKEN: HttpStatus.UNAUTHORIZED,
  EXPIRED_TOKEN: HttpStatus.UNAUTHORIZED,
  INVALID_API_KEY: HttpStatus.UNAUTHORIZED,
  INVALID_CREDENTIALS: HttpStatus.UNAUTHORIZED,
  INVALID_REFRESH_TOKEN: HttpStatus.UNAUTHORIZED,
  MFA_REQUIRED: HttpStatus.UNAUTHORIZED,
  INVALID_MFA_TOKEN: HttpStatus.UNAUTHORIZED,
  SSO_FAILED: HttpStatus.UNAUTHORIZED,
  INVALID_PASSKEY: HttpStatus.UNAUTHORIZED,
  INSUFFICIENT_PERMISSIONS: HttpStatus.FORBIDDEN,
  INSUFFICIENT_SCOPE: HttpStatus.FORBIDDEN,
  INVALID_CURRENT_PASSWORD: HttpStatus.FORBIDDEN,
  ORIGIN_NOT_ALLOWED: HttpStatus.FORBIDDEN,
  EMAIL_NOT_VERIFIED: HttpStatus.FORBIDDEN,
  REGISTRATION_CLOSED: HttpStatus.FORBIDDEN,
  MFA_ENROLMENT_REQUIRED: HttpStatus.FORBIDDEN,
  INVALID_MFA_CODE: HttpStatus.FORBIDDEN,
  SSO_EMAIL_NOT_VERIFIED: HttpStatus.FORBIDDEN,
  SSO_DOMAIN_NOT_ALLOWED: HttpStatus.FORBIDDEN,
  NOT_FOUND: HttpStatus.NOT_FOUND,
  PET_NOT_FOUND: HttpStatus.NOT_FOUND,
  CATEGORY_NOT_FOUND: HttpStatus.NOT_FOUND,
  USER_NOT_FOUND: HttpStatus.NOT_FOUND,
  API_KEY_NOT_FOUND: HttpStatus.NOT_FOUND,
  ADOPTION_NOT_FOUND: HttpStatus.NOT_FOUND,
  SESSION_NOT_FOUND: HttpStatus.NOT_FOUND,
  WEBHOOK_NOT_FOUND: HttpStatus.NOT_FOUND,
  WEBHOOK_DELIVERY_NOT_FOUND: HttpStatus.NOT_FOUND,
  PET_IMPORT_NOT_FOUND: HttpStatus.NOT_FOUND,
  MFA_FACTOR_NOT_FOUND: HttpStatus.NOT_FOUND,
  PASSKEY_NOT_FOUND: HttpStatus.NOT_FOUND,
  SSO_NOT_CONFIGURED: HttpStatus.NOT_FOUND,
  METHOD_NOT_ALLOWED: HttpStatus.METHOD_NOT_ALLOWED,
  INVALID_STATUS_TRANSITION: HttpStatus.CONFLICT,
  CONFLICT: HttpStatus.CONFLICT,
  CATEGORY_IN_USE: HttpStatus.CONFLICT,
  EXTERNAL_ID_TAKEN: HttpStatus.CONFLICT,
  PET_IMPORT_FINISHED: HttpStatus.CONFLICT,
  API_KEY_LIMIT_REACHED: HttpStatus.CONFLICT,
  WEBHOOK_LIMIT_REACHED: HttpStatus.CONFLICT,
  MFA_ALREADY_ENABLED: HttpStatus.CONFLICT,
  PASSKEY_ALREADY_REGISTERED: HttpStatus.CONFLICT,
  PET_NOT_AVAILABLE: HttpStatus.CONFLICT,
  PET_HAS_OPEN_ADOPTION: HttpStatus.CONFLICT,
  ADOPTION_LIMIT_REACHED: HttpStatus.CONFLICT,
  INVALID_ADOPTION_TRANSITION: HttpStatus.CONFLICT,
  IDEMPOTENCY_KEY_IN_PROGRESS: HttpStatus.CONFLICT,
  PRECONDITION_FAILED: HttpStatus.PRECONDITION_FAILED,
  PAYLOAD_TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  UNSUPPORTED_MEDIA_TYPE: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  IDEMPOTENCY_KEY_REUSED: HttpStatus.UNPROCESSABLE_ENTITY,
  RATE_LIMIT_EXCEEDED: HttpStatus.TOO_MANY_REQUESTS,
  INTERNAL_ERROR: HttpStatus.INTERNAL_SERVER_ERROR,
  SERVICE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
} as const satisfies Record<string, HttpStatus>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface FieldError {
  field: string;
  message: string;
}

/**
 * An error the client is meant to see, in the shape docs/api.md gives; its code sets the
 * status.
 */
export class ApiException extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. `Allow` or `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message, ERROR_STATUS[code]);
  }

  static validation(fields: FieldError[]): ApiException {
    const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return new ApiException('VALIDATION_ERROR', `Validation failed (${summary})`, { fields });
  }

  /** A unique value the request asked for belongs to another row: 409 naming its field. */
  static taken(field: string | undefined): ApiException {
    return new ApiException(
      'CONFLICT',
      field ? `${field} is already taken` : 'A unique value is already taken',
      field ? { field } : undefined,
    );
  }

  static forbidden(message: string): ApiException {
    return new ApiException('INSUFFICIENT_PERMISSIONS', message);
  }

  /**
   * Refused for now, not for good: docs/api.md sets `Retry-After` on every 429 and 503 (and
   * on a 409 for an Idempotency-Key still in progress), so a client knows when to try again.
   */
  static retryLater(
    code: 'RATE_LIMIT_EXCEEDED' | 'SERVICE_UNAVAILABLE' | 'IDEMPOTENCY_KEY_IN_PROGRESS',
    message: string,
    retryAfterSeconds: number,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): ApiException {
    return new ApiException(code, message, details, {
      [RETRY_AFTER_HEADER]: String(retryAfterSeconds),
      ...headers,
    });
  }
}
