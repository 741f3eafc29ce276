import { ApiException } from '../../common/errors/api-exception.js';
import { WWW_AUTHENTICATE_HEADER } from '../../common/http/header-names.js';

/** What can complete a waiting login (`details.methods` of MFA_REQUIRED: the account's). */
export type MfaMethod = 'totp' | 'recovery_code' | 'passkey';

const BEARER = 'Bearer realm="petstore"';

export const MfaErrors = {
  required: (mfaToken: string, expiresIn: number, methods: MfaMethod[]) =>
    new ApiException(
      'MFA_REQUIRED',
      'This account signs in with a second factor: send a code or a passkey’s assertion with POST /v1/auth/mfa/verify',
      { mfaToken, methods, expiresIn },
      { [WWW_AUTHENTICATE_HEADER]: BEARER },
    ),
  /** At login, with the token that can only enrol; elsewhere, without one. */
  enrolmentRequired: (enrolment?: { enrolmentToken: string; expiresIn: number }) =>
    new ApiException(
      'MFA_ENROLMENT_REQUIRED',
      'This account must enrol a second factor first: POST /v1/auth/mfa/totp, then /confirm; or a passkey',
      enrolment,
    ),
  // One answer for unknown, expired, spent and voided tokens.
  invalidToken: () =>
    new ApiException(
      'INVALID_MFA_TOKEN',
      'The mfaToken is not valid (expired, used, or voided by wrong codes); log in again',
      undefined,
      { [WWW_AUTHENTICATE_HEADER]: BEARER },
    ),
  invalidCode: (attemptsLeft?: number) =>
    new ApiException(
      'INVALID_MFA_CODE',
      'The code is not valid (wrong, already used, or outside its time window)',
      attemptsLeft === undefined ? undefined : { attemptsLeft },
    ),
  notFound: () => new ApiException('MFA_FACTOR_NOT_FOUND', 'No second factor to confirm or remove'),
  alreadyEnabled: () =>
    new ApiException(
      'MFA_ALREADY_ENABLED',
      'A TOTP factor is already enabled; remove it (with a code) before enrolling another',
    ),
};
