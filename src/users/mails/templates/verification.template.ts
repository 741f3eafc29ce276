import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/**
 * Sent at sign-up, and on a request to send it again: the link verifies the address. It
 * greets no one: the username was chosen by whoever signed up, perhaps not the address's owner.
 */
export function verificationMail(params: { link: string; validHours: number }): Mail {
  return composeMail({
    template: 'verification',
    subject: 'Confirm your email address',
    greeting: greetingOf(null),
    paragraphs: [
      'Someone, hopefully you, signed up at the pet store with this address. Open the link below to confirm it and activate the account.',
      `The link works once, for ${params.validHours} hours. If you did not sign up, ignore this mail: no account becomes active without it.`,
    ],
    action: { label: 'Confirm your address', url: params.link },
  });
}
