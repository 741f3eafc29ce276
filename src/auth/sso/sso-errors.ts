import { ApiException } from '../../common/errors/api-exception.js';
import { WWW_AUTHENTICATE_HEADER } from '../../common/http/header-names.js';

export const SsoErrors = {
  notConfigured: () =>
    new ApiException('SSO_NOT_CONFIGURED', 'Single sign-on is not configured on this service'),
  /**
   * One code for every check of the provider's answer that fails (state, nonce, signature,
   * issuer, audience, a refused or spent code); `reason` says which, for the person's admin.
   */
  failed: (reason: string) =>
    new ApiException(
      'SSO_FAILED',
      'Single sign-on failed; start again from the sign-in page',
      { reason },
      // RFC 9110 asks every 401 for a challenge: the one a login's answers carry.
      { [WWW_AUTHENTICATE_HEADER]: 'Bearer realm="petstore"' },
    ),
  emailNotVerified: () =>
    new ApiException(
      'SSO_EMAIL_NOT_VERIFIED',
      'The provider did not vouch for an email address of this account, so it cannot be linked',
    ),
  domainNotAllowed: () =>
    new ApiException(
      'SSO_DOMAIN_NOT_ALLOWED',
      'Accounts of this email domain may not sign in to this service',
    ),
  registrationClosed: () =>
    new ApiException(
      'REGISTRATION_CLOSED',
      'No account has this email address, and this service does not create accounts',
    ),
};
