import { SetMetadata } from '@nestjs/common';

export const MFA_ENROLMENT_KEY = 'petstore:mfa-enrolment';

/**
 * Opens a route to a caller that may only enrol a second factor (`mfaEnrolmentOnly`):
 * every other route answers it 403 MFA_ENROLMENT_REQUIRED.
 */
export const MfaEnrolment = () => SetMetadata(MFA_ENROLMENT_KEY, true);
