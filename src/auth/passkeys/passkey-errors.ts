import { ApiException } from '../../common/errors/api-exception.js';
import { WWW_AUTHENTICATE_HEADER } from '../../common/http/header-names.js';

export const PasskeyErrors = {
  notFound: () => new ApiException('PASSKEY_NOT_FOUND', 'No such passkey of this account'),
  /**
   * One code for every check of a new credential that fails (challenge, origin, relying
   * party, user verification, attestation); `reason` says which, for the developer.
   */
  registrationFailed: (reason: string) =>
    new ApiException(
      'PASSKEY_REGISTRATION_FAILED',
      'The passkey could not be registered; ask for new options and try again',
      { reason },
    ),
  alreadyRegistered: () =>
    new ApiException('PASSKEY_ALREADY_REGISTERED', 'This credential is registered already'),
  // One answer for an unknown credential, a spent or expired challenge, a bad signature, a
  // clone's counter and an account that may not sign in: none tells an account apart.
  invalid: () =>
    new ApiException(
      'INVALID_PASSKEY',
      'The passkey did not sign in; ask for new options and try again',
      undefined,
      // RFC 9110 asks every 401 for a challenge: the one a login's answers carry.
      { [WWW_AUTHENTICATE_HEADER]: 'Bearer realm="petstore"' },
    ),
};
