import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/**
 * Sent to the owner of an address that another account asked to change its email to: the
 * answer to that change is the same either way, so that addresses cannot be enumerated.
 */
export function emailChangeAttemptMail(params: {
  username: string;
  forgotPasswordUrl: string;
}): Mail {
  return composeMail({
    template: 'email-change-attempt',
    subject: 'Someone tried to use your address',
    greeting: greetingOf(params.username),
    paragraphs: [
      'Another pet store account asked to change its email to this address, which already belongs to your account. Nothing was changed, and nothing will be.',
      'If it was you, sign in with your username; if you forgot your password, you can reset it. If it was not you, nothing needs to be done.',
    ],
    action: { label: 'Reset your password', url: params.forgotPasswordUrl },
  });
}
