import type { Request } from 'express';
import { ApiException } from '../common/errors/api-exception.js';
import { IDEMPOTENCY_KEY_HEADER } from '../common/http/header-names.js';

// idempotency.service.ts imports the name from here.
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// Printable ASCII (0x20–0x7E); Node has already trimmed the spaces around a header value.
const WELL_FORMED_KEY = new RegExp(`^[\\x20-\\x7E]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);

/** The request's Idempotency-Key, undefined without one; a malformed one is 400 naming it. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const value = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !WELL_FORMED_KEY.test(value)) {
    throw ApiException.validation([
      {
        field: IDEMPOTENCY_KEY_HEADER,
        message: `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`,
      },
    ]);
  }
  return value;
}
