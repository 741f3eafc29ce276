import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/**
 * Sent to the owner of an address that someone tried to sign up with again: the answer to
 * the sign-up is the same either way, so that addresses cannot be enumerated.
 */
export function registrationAttemptMail(params: {
  username: string;
  forgotPasswordUrl: string;
}): Mail {
  return composeMail({
    template: 'registration-attempt',
    subject: 'Someone tried to sign up with your address',
    greeting: greetingOf(params.username),
    paragraphs: [
      'Someone tried to create a pet store account with this address, which already belongs to your account. No second account was created.',
      'If it was you, sign in with your username instead; if you forgot your password, you can reset it. If it was not you, nothing needs to be done.',
    ],
    action: { label: 'Reset your password', url: params.forgotPasswordUrl },
  });
}
