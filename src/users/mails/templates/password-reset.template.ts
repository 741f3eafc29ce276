import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/**
 * Sent on a request to reset a forgotten password: the link lets its reader set a new one.
 * `username` null for an account whose address is not verified yet.
 */
export function passwordResetMail(params: {
  username: string | null;
  link: string;
  validMinutes: number;
}): Mail {
  return composeMail({
    template: 'password-reset',
    subject: 'Reset your password',
    greeting: greetingOf(params.username),
    paragraphs: [
      'Someone, hopefully you, asked to reset the password of your pet store account. Open the link below to choose a new one; it also signs out every session and revokes your API keys.',
      `The link works once, for ${params.validMinutes} minutes. If you did not ask, ignore this mail: your password stays as it is.`,
    ],
    action: { label: 'Choose a new password', url: params.link },
  });
}
