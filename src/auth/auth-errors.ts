import { ApiException, type ErrorCode } from '../common/errors/api-exception.js';
import { API_KEY_HEADER, WWW_AUTHENTICATE_HEADER } from '../common/http/header-names.js';

const REALM = 'realm="petstore"';
const BEARER = `Bearer ${REALM}`;
const API_KEY = `ApiKey header="${API_KEY_HEADER}"`;

// RFC 9110 asks every 401 to carry a challenge; RFC 6750 names the bearer error codes.
function unauthorized(
  code: ErrorCode,
  message: string,
  challenge: string,
  details?: Record<string, unknown>,
): ApiException {
  return new ApiException(code, message, details, {
    [WWW_AUTHENTICATE_HEADER]: challenge,
  });
}

export const AuthErrors = {
  required: () =>
    unauthorized(
      'AUTHENTICATION_REQUIRED',
      `Send a bearer token (Authorization: Bearer ...) or an API key (${API_KEY_HEADER})`,
      `${BEARER}, ${API_KEY}`,
    ),
  invalidToken: (reason: string) =>
    unauthorized(
      'INVALID_TOKEN',
      `The bearer token is not valid: ${reason}`,
      `${BEARER}, error="invalid_token"`,
    ),
  expiredToken: (expiredAt: Date, now: Date) =>
    unauthorized(
      'EXPIRED_TOKEN',
      'The bearer token has expired; log in again',
      `${BEARER}, error="invalid_token", error_description="token expired"`,
      { expired_at: expiredAt.toISOString(), current_time: now.toISOString() },
    ),
  invalidApiKey: () => unauthorized('INVALID_API_KEY', 'The API key is not valid', API_KEY),
  expiredApiKey: (expiredAt: Date) =>
    unauthorized(
      'INVALID_API_KEY',
      'The API key has expired; roll it or create another with a bearer token',
      API_KEY,
      { reason: 'expired', expiredAt: expiredAt.toISOString() },
    ),
  invalidCredentials: () =>
    unauthorized('INVALID_CREDENTIALS', 'Username or password is incorrect', BEARER),
  emailNotVerified: () =>
    new ApiException(
      'EMAIL_NOT_VERIFIED',
      'Verify your email address first: use the link mailed to it, or ask for a new one',
    ),
  // One answer for unknown, expired, revoked and spent tokens (docs/identity.md, Sessions).
  invalidRefreshToken: () =>
    unauthorized('INVALID_REFRESH_TOKEN', 'The refresh token is not valid; log in again', BEARER),
};
