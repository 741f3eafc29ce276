import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/** Sent after an account's password changed, by its owner or an admin, so that a stranger's change is noticed. */
export function passwordChangedMail(params: { username: string; forgotPasswordUrl: string }): Mail {
  return composeMail({
    template: 'password-changed',
    subject: 'Your password was changed',
    greeting: greetingOf(params.username),
    paragraphs: [
      'The password of your pet store account was just changed.',
      'If it was you, nothing needs to be done. If it was not, reset your password now with the link below, and tell an administrator.',
    ],
    action: { label: 'Reset your password', url: params.forgotPasswordUrl },
  });
}
